from django.urls import path

from annotations.datasets import question_views, views

urlpatterns = [
    path("datasets/", views.dataset_list, name="dataset-list"),
    path("datasets/<uuid:pk>/", views.dataset_detail, name="dataset-detail"),
    path("datasets/<uuid:pk>/annotate/", views.dataset_annotate, name="dataset-annotate"),
    path("datasets/<uuid:pk>/review-next/", views.review_next, name="dataset-review-next"),
    path("datasets/<uuid:pk>/download/", views.dataset_download, name="dataset-download"),
    path("datasets/<uuid:pk>/columns/<int:column_id>/", views.column_edit, name="dataset-column"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/", views.level_edit, name="dataset-level"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/annotate/", views.level_annotate, name="dataset-level-annotate"),
    path("datasets/<uuid:pk>/tasks/<str:task>/sidecar/", views.task_sidecar_page, name="dataset-sidecar"),
    path("datasets/<uuid:pk>/tasks/<str:task>/quality/", question_views.task_quality_panel, name="dataset-quality"),
    path("datasets/<uuid:pk>/questions/", question_views.question_answer, name="dataset-question"),
]
