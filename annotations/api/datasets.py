"""REST API of dataset projects: upload, inventory and progress, edits, annotate all, sidecars, the zip.

Same visibility as sessions: another user's project is a 404. Thin views over
:mod:`annotations.datasets.services`, :mod:`.selectors` and :mod:`.sidecars`.
"""

from __future__ import annotations

import logging
import tempfile
from typing import Any

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, Throttled, ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.parsers import BoundedJSONParser
from annotations.datasets import services
from annotations.datasets.bids.archive import DatasetError
from annotations.datasets.selectors import (
    LevelState,
    current_status,
    level_states,
    progress,
    progress_of,
    visible_projects,
)
from annotations.datasets.sidecars import task_sidecar, write_zip
from annotations.datasets.uploads import files_from_uploads
from annotations.datasets.views import ZIP_SPOOL_BYTES
from annotations.models import DatasetColumn, DatasetLevel, DatasetProject
from annotations.runs.quota import RunQuotaExceeded

logger = logging.getLogger(__name__)


def _project(request: Request, pk: Any) -> DatasetProject:
    return get_object_or_404(visible_projects(request.user), pk=pk)


def _bad(exc: services.DatasetRequestError | DatasetError, field: str = "files") -> ValidationError:
    if isinstance(exc, services.DatasetRequestError):
        return ValidationError({exc.field: [exc.message]})
    return ValidationError({field: [str(exc)]})


def _level(state: LevelState) -> dict[str, Any]:
    level = state.level
    return {"id": level.pk, "value": level.value, "count": level.count, "description": level.description,
            "needs_description": level.needs_description, "status": state.status, "annotation": state.annotation,
            "source": state.source or None, "session": str(state.session_id) if state.session_id else None,
            "latest_session": str(state.latest_session_id) if state.latest_session_id else None}


def project_data(project: DatasetProject, *, with_inventory: bool = True,
                 progress_figures: dict[str, int] | None = None) -> dict[str, Any]:
    """The API's view of a project; a list passes *progress_figures* it computed for all its projects at once."""
    states = level_states(project) if with_inventory or progress_figures is None else []
    data: dict[str, Any] = {
        "id": str(project.pk), "name": project.name, "status": current_status(project), "error": project.error,
        "schema_version": project.schema_version, "hed_version": project.hed_version,
        "ignore_existing_hed": project.ignore_existing_hed, "concurrency": project.concurrency,
        "created_at": project.created_at.isoformat(),
        "progress": progress_figures if progress_figures is not None else progress(states)}
    if not with_inventory:
        return data
    by_column: dict[int, list[dict[str, Any]]] = {}
    for state in states:
        by_column.setdefault(state.level.column_id, []).append(_level(state))
    columns_of: dict[int, list[DatasetColumn]] = {}
    for column in DatasetColumn.objects.filter(task__project=project).defer("template_issues"):
        columns_of.setdefault(column.task_id, []).append(column)
    tasks = []
    for task in project.tasks.only("id", "name", "sidecar_name", "events_files"):
        columns = []
        for column in columns_of.get(task.pk, []):
            columns.append({
                "id": column.pk, "name": column.name, "kind": column.kind, "detected_kind": column.detected_kind,
                "description": column.description, "needs_description": column.needs_description,
                "units": column.units or None, "distinct_values": column.distinct_values,
                "template": column.template or None if column.kind == "value" else None,
                "levels": by_column.get(column.pk, []) if column.kind == "categorical" else []})
        tasks.append({"task": task.name, "sidecar": task.sidecar_name, "events_files": task.events_files,
                      "columns": columns})
    data["tasks"] = tasks
    return data


class DatasetUploadSerializer(serializers.Serializer):
    files = serializers.ListField(child=serializers.FileField(allow_empty_file=True), allow_empty=False,
                                  help_text="One zip of a BIDS folder, or several *_events.tsv / *_events.json.")
    name = serializers.CharField(required=False, allow_blank=True, max_length=services.MAX_NAME_CHARS)
    schema_version = serializers.CharField(required=False, allow_blank=True, max_length=16)
    concurrency = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_CONCURRENCY)
    ignore_existing_hed = serializers.BooleanField(required=False, default=False)


class ColumnPatchSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["categorical", "value", "skip"], required=False)
    template = serializers.CharField(required=False, max_length=services.MAX_DESCRIPTION_CHARS)


class LevelPatchSerializer(serializers.Serializer):
    description = serializers.CharField(max_length=services.MAX_DESCRIPTION_CHARS)


class AnnotateSerializer(serializers.Serializer):
    concurrency = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_CONCURRENCY)


PROJECT = inline_serializer("DatasetProject", {
    "id": serializers.UUIDField(), "name": serializers.CharField(),
    "status": serializers.ChoiceField(choices=["ready", "annotating", "done", "failed"]),
    "progress": serializers.DictField(child=serializers.IntegerField()), "tasks": serializers.ListField()})


class DatasetListCreateView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses={200: PROJECT}, operation_id="datasets_list",
                   summary="Your dataset projects (reviewers and staff: everyone's)")
    def get(self, request: Request) -> Response:
        projects = list(visible_projects(request.user)[:200])
        figures = progress_of(projects)
        return Response({"results": [project_data(p, with_inventory=False, progress_figures=figures[p.pk])
                                     for p in projects]})

    @extend_schema(request={"multipart/form-data": DatasetUploadSerializer}, responses={201: PROJECT},
                   summary="Upload a BIDS dataset (zip) or its events files; answers with the inventory")
    def post(self, request: Request) -> Response:
        # A form body is a QueryDict (one value per field); any other body (empty, JSON) has no files.
        fields = request.data.dict() if hasattr(request.data, "dict") else {}
        body = DatasetUploadSerializer(data={**fields, "files": request.FILES.getlist("files")})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            files = files_from_uploads(data["files"])
            project = services.import_dataset(
                user=request.user, files=files, name=data.get("name") or (data["files"][0].name or ""),
                schema_version=data.get("schema_version") or None,
                ignore_existing_hed=data["ignore_existing_hed"], concurrency=data.get("concurrency") or 4)
        except (DatasetError, services.DatasetRequestError) as exc:
            raise _bad(exc) from None
        return Response(project_data(project), status=status.HTTP_201_CREATED)


class DatasetDetailView(APIView):
    @extend_schema(responses={200: PROJECT}, summary="A project: status, progress and the whole inventory")
    def get(self, request: Request, pk: Any) -> Response:
        return Response(project_data(_project(request, pk)))


class DatasetColumnView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(request=ColumnPatchSerializer, responses={200: OpenApiTypes.OBJECT},
                   summary="Change a column's kind, or a value column's # template")
    def patch(self, request: Request, pk: Any, column_id: int) -> Response:
        project = _project(request, pk)
        column = get_object_or_404(DatasetColumn.objects.select_related("task__project"), pk=column_id,
                                   task__project=project)
        body = ColumnPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if not body.validated_data:
            raise ValidationError({"kind": ["give kind or template"]})
        try:
            if "kind" in body.validated_data:
                services.set_column_kind(column, body.validated_data["kind"])
            if "template" in body.validated_data:
                services.set_column_template(column, body.validated_data["template"])
        except services.DatasetRequestError as exc:
            raise _bad(exc) from None
        return Response({"id": column.pk, "name": column.name, "kind": column.kind,
                         "template": column.template or None})


class DatasetLevelView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(request=LevelPatchSerializer, responses={200: OpenApiTypes.OBJECT},
                   summary="Give a level a description (annotate it again for it to count)")
    def patch(self, request: Request, pk: Any, level_id: int) -> Response:
        project = _project(request, pk)
        level = get_object_or_404(DatasetLevel, pk=level_id, column__task__project=project)
        body = LevelPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            services.set_level_description(level, body.validated_data["description"])
        except services.DatasetRequestError as exc:
            raise _bad(exc) from None
        return Response({"id": level.pk, "value": level.value, "description": level.description,
                         "needs_description": level.needs_description})


class DatasetAnnotateView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(request=AnnotateSerializer, responses={202: OpenApiTypes.OBJECT},
                   summary="Annotate every level that has no annotation yet (accepted ones are skipped)")
    def post(self, request: Request, pk: Any) -> Response:
        project = _project(request, pk)
        body = AnnotateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            sessions = services.start_annotation(project, user=request.user,
                                                 concurrency=body.validated_data.get("concurrency"))
        except RunQuotaExceeded as exc:
            raise Throttled(wait=exc.retry_after, detail=str(exc)) from None
        except services.DatasetRequestError as exc:
            if exc.field == "status":
                return Response({"detail": exc.message}, status=status.HTTP_409_CONFLICT)
            raise _bad(exc) from None
        project.refresh_from_db()
        return Response({"id": str(project.pk), "status": project.status, "queued": len(sessions),
                         "sessions": [str(s.pk) for s in sessions]}, status=status.HTTP_202_ACCEPTED)


class DatasetSidecarView(APIView):
    @extend_schema(parameters=[OpenApiParameter("task", str, description="The task (optional with one task).")],
                   responses={200: OpenApiTypes.OBJECT},
                   summary="A task's events.json; X-HED-Valid says whether it and every events file validate")
    def get(self, request: Request, pk: Any) -> Response:
        project = _project(request, pk)
        tasks = list(project.tasks.all())
        name = request.query_params.get("task")
        if name is None and len(tasks) == 1:
            task = tasks[0]
        else:
            task = next((t for t in tasks if t.name == name), None)
            if task is None:
                known = ", ".join(t.name for t in tasks)
                if name is None:
                    raise ValidationError({"task": [f"this dataset has several tasks; choose one of: {known}"]})
                raise NotFound(f"no task {name!r}; this dataset has: {known}")
        result = task_sidecar(project, task)
        response = Response(result.sidecar)
        response["X-HED-Valid"] = "true" if result.is_valid else "false"
        response["Content-Disposition"] = content_disposition_header(False, task.sidecar_name)
        return response


class DatasetDownloadView(APIView):
    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY},
                   summary="The dataset's files with the new sidecars in place, as a zip")
    def get(self, request: Request, pk: Any) -> FileResponse:
        project = _project(request, pk)
        spool = tempfile.SpooledTemporaryFile(max_size=ZIP_SPOOL_BYTES)  # noqa: SIM115 - FileResponse closes it
        write_zip(project, spool)
        spool.seek(0)
        return FileResponse(spool, as_attachment=True, filename=f"dataset-{project.pk}.zip",
                            content_type="application/zip")
