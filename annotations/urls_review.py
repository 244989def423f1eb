from django.urls import path

from annotations import views_review

urlpatterns = [
    path("review/", views_review.review_queue, name="review-queue"),
    path("review/tags/", views_review.review_tags, name="review-tags"),
    path("sessions/<uuid:pk>/review/", views_review.review_submit, name="review-submit"),
    path("sessions/<uuid:pk>/review/panel/", views_review.review_panel, name="review-panel"),
    path("sessions/<uuid:pk>/correct/", views_review.review_correct, name="review-correct"),
    path("sessions/<uuid:pk>/bids/", views_review.review_bids, name="review-bids"),
    path("export/", views_review.export, name="export"),
]
