from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from annotations.api import dataset_questions, datasets, docs, evaluation, tokens, usage, views

app_name = "api"

urlpatterns = [
    path("sessions/", views.SessionListCreateView.as_view(), name="session-list"),
    path("sessions/<uuid:pk>/", views.SessionDetailView.as_view(), name="session-detail"),
    path("sessions/<uuid:pk>/reviews/", views.SessionReviewsView.as_view(), name="session-reviews"),
    path("sessions/<uuid:pk>/revisions/", views.SessionRevisionsView.as_view(), name="session-revisions"),
    path("sessions/<uuid:pk>/dataset-level/", views.SessionDatasetLevelView.as_view(), name="session-dataset-level"),
    path("datasets/", datasets.DatasetListCreateView.as_view(), name="dataset-list"),
    path("datasets/<uuid:pk>/", datasets.DatasetDetailView.as_view(), name="dataset-detail"),
    path("datasets/<uuid:pk>/columns/<int:column_id>/", datasets.DatasetColumnView.as_view(), name="dataset-column"),
    path("datasets/<uuid:pk>/levels/<int:level_id>/", datasets.DatasetLevelView.as_view(), name="dataset-level"),
    path("datasets/<uuid:pk>/annotate/", datasets.DatasetAnnotateView.as_view(), name="dataset-annotate"),
    path("datasets/<uuid:pk>/questions/", dataset_questions.DatasetQuestionsView.as_view(), name="dataset-questions"),
    path("datasets/<uuid:pk>/sidecar/", datasets.DatasetSidecarView.as_view(), name="dataset-sidecar"),
    path("datasets/<uuid:pk>/download/", datasets.DatasetDownloadView.as_view(), name="dataset-download"),
    path("evaluation/", evaluation.EvaluationTableView.as_view(), name="evaluation"),
    path("datasets/<uuid:pk>/search/", usage.DatasetSearchView.as_view(), name="dataset-search"),
    path("datasets/<uuid:pk>/design/", usage.DatasetDesignView.as_view(), name="dataset-design"),
    path("datasets/<uuid:pk>/summary/", usage.DatasetSummaryView.as_view(), name="dataset-summary"),
    path("datasets/<uuid:pk>/rules/", usage.AcceptanceRuleListView.as_view(), name="dataset-rules"),
    path("datasets/<uuid:pk>/rules/<int:rule_id>/", usage.AcceptanceRuleDetailView.as_view(), name="dataset-rule"),
    path("validate/", views.ValidateView.as_view(), name="validate"),
    path("export/", views.ExportView.as_view(), name="export"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", docs.api_docs, name="docs"),
    path("token/", tokens.token_page, name="token"),
    path("token/create/", tokens.token_create, name="token-create"),
    path("token/revoke/", tokens.token_revoke, name="token-revoke"),
]
