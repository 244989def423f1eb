from django.urls import path

from annotations import views_llm

urlpatterns = [
    path("settings/llm/", views_llm.llm_settings, name="llm-settings"),
]
