from django.urls import path

from annotations import views

urlpatterns = [
    path("", views.annotate, name="annotate"),
    path("sessions/<uuid:pk>/", views.session_detail, name="session-detail"),
]
