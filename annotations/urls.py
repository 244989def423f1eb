"""URL names of the app (namespace ``annotations``); each concern keeps its routes beside its views."""

from django.urls import include, path

app_name = "annotations"

urlpatterns = [
    path("", include("annotations.runs.urls")),
    path("", include("annotations.history.urls")),
    path("", include("annotations.review.urls")),
    path("", include("annotations.exports.urls")),
    path("", include("annotations.validation.urls")),
    path("", include("annotations.llm.urls")),
    path("", include("annotations.datasets.urls")),
    path("", include("annotations.evaluation.urls")),
    path("", include("annotations.usage.urls")),
]
