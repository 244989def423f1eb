from django.urls import path

from annotations.validation import views

urlpatterns = [
    path("validate/", views.validate, name="validate"),
    path("validate/check/", views.validate_check, name="validate-check"),
]
