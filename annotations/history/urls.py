from django.urls import path

from annotations.history import views

urlpatterns = [
    path("sessions/", views.history, name="history"),
]
