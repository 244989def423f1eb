from django.urls import path

from annotations.exports import views

urlpatterns = [
    path("export/", views.export, name="export"),
]
