from django.urls import path

from annotations.review import views

urlpatterns = [
    path("review/", views.review_queue, name="review-queue"),
    path("review/tags/", views.review_tags, name="review-tags"),
    path("sessions/<uuid:pk>/review/", views.review_submit, name="review-submit"),
    path("sessions/<uuid:pk>/review/panel/", views.review_panel, name="review-panel"),
    path("sessions/<uuid:pk>/correct/", views.review_correct, name="review-correct"),
    path("sessions/<uuid:pk>/dataset-level/", views.review_dataset_level, name="review-dataset-level"),
    path("sessions/<uuid:pk>/request-review/", views.review_request, name="review-request"),
]
