"""REST API views: thin wrappers around services, reviews and exports.

A user sees through the API exactly what the pages show them: querysets start from
``selectors.visible_sessions`` (another user's session is a 404) and are narrowed by the
same history filters. The services' errors become answers in one place,
:mod:`annotations.api.exceptions` (400 naming the field, 403, 404, 409, 429).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from annotations import access, corrections
from annotations.api.pagination import SessionPagination
from annotations.api.permissions import IsReviewerToWrite
from annotations.api.serializers import (
    CreatedSessionSerializer,
    DatasetLevelInputSerializer,
    ExportQuerySerializer,
    ReviewInputSerializer,
    ReviewSerializer,
    RevisionInputSerializer,
    RevisionSerializer,
    SessionCreateSerializer,
    SessionDetailSerializer,
    SessionSerializer,
    ValidateInputSerializer,
    ValidateResultSerializer,
)
from annotations.api.throttles import ValidateThrottle
from annotations.datasets.selectors import visible_projects
from annotations.datasets.services import add_session_to_level
from annotations.exports.formats import check_format, export_response, sessions_for_export
from annotations.history.filters import FILTERS
from annotations.models import AnnotationSession, DatasetLevel
from annotations.review import services as reviews
from annotations.runs.services import RequestError, build_options, create_session, start_session
from annotations.selectors import visible_sessions, with_record_relations

logger = logging.getLogger(__name__)

# The history filters' parameters, from their one declaration.
FILTER_PARAMETERS = [
    OpenApiParameter(f.name, f.api_type, description=f.help,
                     enum=[value for value, _ in f.choices()] if f.enum and f.choices else None)
    for f in FILTERS]


def _visible_session(request: Request, pk: Any) -> AnnotationSession:
    return get_object_or_404(visible_sessions(request.user), pk=pk)


def _checked_input(request: Request, pk: Any,
                   serializer_class: type[Serializer]) -> tuple[AnnotationSession, dict[str, Any]]:
    """The visible session (else 404) and the request body checked by *serializer_class* (else 400)."""
    session = _visible_session(request, pk)
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return session, data.validated_data


def _filtered_sessions(request: Request) -> Any:
    return sessions_for_export(request.user, request.query_params)  # a FilterError: a 400 naming each filter


class SessionListCreateView(generics.ListCreateAPIView):
    """Sessions the caller may see, newest first, with the history filters; POST starts a run."""

    serializer_class = SessionSerializer
    pagination_class = SessionPagination

    def get_queryset(self) -> Any:
        return _filtered_sessions(self.request).select_related("user")

    @extend_schema(parameters=FILTER_PARAMETERS, summary="List sessions")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=SessionCreateSerializer, responses={201: SessionDetailSerializer},
                   summary="Annotate a description",
                   description="Stores the session and starts the run; poll the session for its result. "
                               "Every run counts against the caller's quota (HEDIT_RUN_RATE, default 60 per "
                               "hour, shared with the pages): past it the answer is 429 with Retry-After.")
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = SessionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        raw_options = dict(values.get("options") or {})
        if values.get("schema_version"):
            raw_options["schema_version"] = values["schema_version"]
        try:
            options = build_options(raw_options)
        except RequestError as exc:
            if exc.field != "schema_version":
                exc.field = "options"  # the API body nests the run's options under "options"
            raise
        with transaction.atomic():
            session = create_session(user=request.user, description=values["description"], options=options,
                                     image=values.get("image"), max_image_bytes=settings.HEDIT_MAX_IMAGE_BYTES)
            start_session(session)
        logger.info("API: %s started session %s", request.user, session.pk)
        body = CreatedSessionSerializer(session, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})


class SessionDetailView(generics.RetrieveAPIView):
    """One session with its iterations, issues, steps, usage, reviews and revisions."""

    serializer_class = SessionDetailSerializer

    def get_queryset(self) -> Any:
        return with_record_relations(visible_sessions(self.request.user), llm_calls=False)  # not in the detail


class SessionReviewsView(APIView):
    permission_classes = [IsAuthenticated, IsReviewerToWrite]

    @extend_schema(responses=ReviewSerializer(many=True), summary="Reviews of a session")
    def get(self, request: Request, pk: Any) -> Response:
        session = _visible_session(request, pk)
        return Response(ReviewSerializer(reviews.reviews_of(session), many=True).data)

    @extend_schema(request=ReviewInputSerializer, responses={201: ReviewSerializer, 200: ReviewSerializer},
                   summary="Review a session (reviewers)",
                   description="Rates 1-5 with a verdict; a reviewer's second review replaces the first (200).")
    def post(self, request: Request, pk: Any) -> Response:
        session, values = _checked_input(request, pk, ReviewInputSerializer)
        review, created = reviews.submit_review(session, request.user, **values)
        return Response(ReviewSerializer(review).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class SessionRevisionsView(APIView):
    permission_classes = [IsAuthenticated, IsReviewerToWrite]

    @extend_schema(responses=RevisionSerializer(many=True), summary="Human corrections of a session")
    def get(self, request: Request, pk: Any) -> Response:
        session = _visible_session(request, pk)
        return Response(RevisionSerializer(reviews.revisions_of(session), many=True).data)

    @extend_schema(request=RevisionInputSerializer, responses={201: RevisionSerializer},
                   summary="Correct the annotation (reviewers)",
                   description="Validates the correction, stores it as a revision and makes it the final "
                               "annotation; the machine's annotation is kept.  A correction that does not "
                               "validate is refused (400 with its issues) unless sent as a draft, which is "
                               "stored but never becomes the final annotation.")
    def post(self, request: Request, pk: Any) -> Response:
        session, values = _checked_input(request, pk, RevisionInputSerializer)
        revision = corrections.correct_annotation(session, request.user, values["hed"], comment=values["comment"],
                                              draft=values["draft"])
        return Response(RevisionSerializer(revision).data, status=status.HTTP_201_CREATED)


class SessionDatasetLevelView(APIView):
    @extend_schema(request=DatasetLevelInputSerializer, responses={200: SessionSerializer},
                   summary="Add a finished, valid run to a dataset project as a level's annotation (owner or "
                           "reviewers); a level that already has a different accepted annotation is refused")
    def put(self, request: Request, pk: Any) -> Response:
        session, values = _checked_input(request, pk, DatasetLevelInputSerializer)
        if not access.can_place_in_dataset(request.user, session):
            raise PermissionDenied("Only the run's owner or a reviewer can add it to a dataset.")
        level = get_object_or_404(DatasetLevel.objects.filter(
            column__task__project__in=visible_projects(request.user)), pk=values["level"])
        add_session_to_level(session, level)
        return Response(SessionSerializer(session, context={"request": request}).data)


class ValidateView(APIView):
    throttle_classes = [ValidateThrottle]

    @extend_schema(request=ValidateInputSerializer, responses={200: ValidateResultSerializer},
                   summary="Validate a HED string")
    def post(self, request: Request) -> Response:
        data = ValidateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        issues = corrections.check_annotation(values["hed"], values["schema_version"], no_extend=values["no_extend"])
        return Response({"valid": not any(i.is_error for i in issues), "schema_version": values["schema_version"],
                         "issues": [corrections.issue_dict(i) for i in issues]})


class _IgnoreFormatParameter(DefaultContentNegotiation):
    # ``format`` names the export format here, not a DRF renderer; errors are always JSON.
    def select_renderer(self, request: Request, renderers: list, format_suffix: str | None = None) -> tuple:
        return renderers[0], renderers[0].media_type


class ExportView(APIView):
    content_negotiation_class = _IgnoreFormatParameter

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["csv", "jsonl"], required=True,
                                     description="csv: one row per session; jsonl: full records. BIDS "
                                                 "sidecars come from dataset projects (/api/datasets/)."),
                    *FILTER_PARAMETERS],
        responses={(200, "text/csv"): OpenApiTypes.STR, (200, "application/x-ndjson"): OpenApiTypes.STR,
                   (200, "application/json"): OpenApiTypes.OBJECT,
                   400: OpenApiResponse(description="unknown format")},
        summary="Export sessions (streamed)")
    def get(self, request: Request) -> Any:
        ExportQuerySerializer(data={"format": request.query_params.get("format", "")}).is_valid(
            raise_exception=True)
        fmt = check_format(request.query_params["format"])
        return export_response(request, fmt, _filtered_sessions(request))
