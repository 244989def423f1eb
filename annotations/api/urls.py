from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from annotations.api import docs, views

app_name = "api"

urlpatterns = [
    path("sessions/", views.SessionListCreateView.as_view(), name="session-list"),
    path("sessions/<uuid:pk>/", views.SessionDetailView.as_view(), name="session-detail"),
    path("sessions/<uuid:pk>/reviews/", views.SessionReviewsView.as_view(), name="session-reviews"),
    path("sessions/<uuid:pk>/revisions/", views.SessionRevisionsView.as_view(), name="session-revisions"),
    path("sessions/<uuid:pk>/bids/", views.SessionBidsView.as_view(), name="session-bids"),
    path("validate/", views.ValidateView.as_view(), name="validate"),
    path("export/", views.ExportView.as_view(), name="export"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", docs.api_docs, name="docs"),
]
