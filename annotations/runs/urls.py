from django.urls import path

from annotations.runs import views

urlpatterns = [
    path("", views.annotate, name="annotate"),
    path("sessions/<uuid:pk>/", views.session_detail, name="session-detail"),
    path("sessions/<uuid:pk>/image/", views.session_image, name="session-image"),
    path("sessions/<uuid:pk>/cancel/", views.session_cancel, name="session-cancel"),
    path("sessions/<uuid:pk>/rerun/", views.session_rerun, name="session-rerun"),
]
