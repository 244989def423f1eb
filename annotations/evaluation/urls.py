from django.urls import path

from annotations.evaluation import views

urlpatterns = [
    path("evaluation/", views.evaluation_page, name="evaluation"),
    path("evaluation/table.<str:fmt>", views.evaluation_download, name="evaluation-download"),
    path("evaluation/start/", views.evaluation_start, name="evaluation-start"),
    path("evaluation/progress/", views.evaluation_progress, name="evaluation-progress"),
    path("evaluation/runs/<uuid:pk>/cancel/", views.evaluation_cancel, name="evaluation-cancel"),
    path("evaluation/sets/<uuid:pk>/watch/", views.set_watch, name="evaluation-watch"),
    path("evaluation/sets/<uuid:pk>/rerun/", views.set_rerun, name="evaluation-rerun"),
]
