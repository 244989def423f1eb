from django.urls import path

from annotations.llm import views

urlpatterns = [
    path("settings/llm/", views.llm_settings, name="llm-settings"),
    path("settings/llm/test/", views.llm_test_connection, name="llm-test-connection"),
]
