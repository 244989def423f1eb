from django.urls import path

from annotations.datasets import level_views, question_views, views

urlpatterns = [
    path("datasets/", views.dataset_list, name="dataset-list"),
    path("datasets/<uuid:pk>/", views.dataset_detail, name="dataset-detail"),
    path("datasets/<uuid:pk>/annotate/", views.dataset_annotate, name="dataset-annotate"),
    path("datasets/<uuid:pk>/review-next/", views.review_next, name="dataset-review-next"),
    path("datasets/<uuid:pk>/download/", views.dataset_download, name="dataset-download"),
    path("datasets/<uuid:pk>/columns/<int:column_id>/", views.column_edit, name="dataset-column"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/", views.level_edit, name="dataset-level"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/annotate/", views.level_annotate, name="dataset-level-annotate"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/correct/", level_views.level_correct, name="dataset-level-correct"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/fix/", level_views.level_fix_panel, name="dataset-level-fix"),
    path("datasets/<uuid:pk>/tasks/<str:task>/sidecar/", views.task_sidecar_page, name="dataset-sidecar"),
    path("datasets/<uuid:pk>/tasks/<str:task>/levels/", views.task_levels, name="dataset-task-levels"),
    path("datasets/<uuid:pk>/tasks/<str:task>/quality/", question_views.task_quality_panel, name="dataset-quality"),
    path("datasets/<uuid:pk>/questions/", question_views.question_answer, name="dataset-question"),
    path("datasets/<uuid:pk>/questions/table/", question_views.question_table, name="dataset-question-table"),
    path("datasets/<uuid:pk>/memory/", question_views.memory_setting, name="dataset-memory"),
]
