"""REST API of dataset projects: upload, inventory and progress, edits, annotate all, sidecars, the zip.

Same visibility as sessions: another user's project is a 404. Thin views over
:mod:`annotations.datasets.services`, :mod:`.selectors` and :mod:`.sidecars`, answering through the
serializers below; refused uploads and bad edits become 400s in :mod:`annotations.api.exceptions`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.dataset_status import ProgressSerializer, with_job
from annotations.api.parsers import BoundedJSONParser
from annotations.datasets import inventory_edits, services
from annotations.datasets.downloads import ZIP_SUFFIX, zip_response
from annotations.datasets.quality import task_quality
from annotations.datasets.results import current_sidecar, settled_status
from annotations.datasets.selectors import (
    LevelState,
    current_status,
    level_states,
    progress,
    progress_of,
    project_for,
    project_for_edit,
    visible_projects,
)
from annotations.datasets.uploads import files_from_uploads
from annotations.models import DatasetColumn, DatasetLevel, DatasetProject, DatasetTask, JobStatus

logger = logging.getLogger(__name__)


# --- answers ---------------------------------------------------------------------------------------


class IsoDateTimeField(serializers.DateTimeField):
    """The stored time as Python writes it (``+00:00``), as this API has always answered."""

    def to_representation(self, value: Any) -> str:
        return value.isoformat()


class LevelSerializer(serializers.Serializer):
    """A level (read from its :class:`LevelState`) with its status and the annotation the sidecar gets."""

    id = serializers.IntegerField(source="level.pk")
    value = serializers.CharField(source="level.value")
    count = serializers.IntegerField(source="level.count")
    description = serializers.CharField(source="level.description")
    needs_description = serializers.BooleanField(source="level.needs_description")
    status = serializers.CharField()
    annotation = serializers.CharField()
    source = serializers.SerializerMethodField()
    session = serializers.UUIDField(source="session_id", allow_null=True)
    latest_session = serializers.UUIDField(source="latest_session_id", allow_null=True)

    def get_source(self, state: LevelState) -> str | None:
        return state.source or None


class ColumnSerializer(serializers.Serializer):
    """A column with its levels; the levels come in the context (``levels``: column id -> states)."""

    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    kind = serializers.CharField()
    detected_kind = serializers.CharField()
    description = serializers.CharField()
    needs_description = serializers.BooleanField()
    units = serializers.SerializerMethodField()
    distinct_values = serializers.IntegerField()
    template = serializers.SerializerMethodField()
    levels = serializers.SerializerMethodField()

    def get_units(self, column: DatasetColumn) -> str | None:
        return column.units or None

    def get_template(self, column: DatasetColumn) -> str | None:
        return (column.template or None) if column.kind == "value" else None

    @extend_schema_field(LevelSerializer(many=True))
    def get_levels(self, column: DatasetColumn) -> list[dict[str, Any]]:
        if column.kind != "categorical":
            return []
        return LevelSerializer(self.context["levels"].get(column.pk, []), many=True).data


class QualitySerializer(serializers.Serializer):
    """A task's quality line: the referee's figures for its current sidecar (score_events.py's definitions)."""

    valid = serializers.BooleanField(help_text="The sidecar and every events file validate, every level has HED.")
    files = serializers.IntegerField(help_text="Events files examined (HEDIT_QUALITY_MAX_FILES / _MAX_ROWS).")
    files_total = serializers.IntegerField()
    rows = serializers.IntegerField()
    rows_ok = serializers.IntegerField(help_text="Rows with HED that hedtools' EventsChecker reports nothing for.")
    rows_hed = serializers.IntegerField()
    rows_ok_share = serializers.FloatField()
    levels = serializers.IntegerField(help_text="Categorical levels with HED, in columns with more than one.")
    levels_distinct = serializers.IntegerField(help_text="Levels whose expanded HED no other level of the column has.")
    distinct_share = serializers.FloatField()
    factors = serializers.ListField(child=serializers.CharField(), help_text="Condition variables hedtools finds.")
    unchecked = serializers.ListField(child=serializers.CharField(), help_text="Files hedtools could not check.")
    open_questions = serializers.IntegerField()
    verdict = serializers.JSONField(help_text="state (validating, invalid, valid, needs_work: valid but most rows "
                                    "fail the event checks), label, done, rows_ok_percent.")
    states = serializers.JSONField(help_text="The task's levels at each status.")


class TaskSerializer(serializers.Serializer):
    """A task with its columns; the columns come in the context (``columns``: task id -> columns)."""

    task = serializers.CharField(source="name")
    sidecar = serializers.CharField(source="sidecar_name")
    events_files = serializers.ListField(child=serializers.CharField())
    columns = serializers.SerializerMethodField()
    quality = serializers.SerializerMethodField()

    @extend_schema_field(QualitySerializer(allow_null=True))
    def get_quality(self, task: DatasetTask) -> dict[str, Any] | None:
        """Only with ``?quality=1`` (hedtools reads the events files): else null."""
        return self.context.get("quality", {}).get(task.pk)

    @extend_schema_field(ColumnSerializer(many=True))
    def get_columns(self, task: DatasetTask) -> list[dict[str, Any]]:
        return ColumnSerializer(self.context["columns"].get(task.pk, []), many=True, context=self.context).data


class ProjectSerializer(serializers.Serializer):
    """A project as listed: status and progress (the context's ``progress``: project id -> figures)."""

    id = serializers.UUIDField(source="pk")
    name = serializers.CharField()
    status = serializers.SerializerMethodField()
    error = serializers.CharField()
    schema_version = serializers.CharField()
    hed_version = serializers.JSONField()
    ignore_existing_hed = serializers.BooleanField()
    concurrency = serializers.IntegerField()
    reuse_memory = serializers.BooleanField(help_text="Whether level runs may start from earlier reviewed "
                                            "annotations (set on the project's page).")
    created_at = IsoDateTimeField()
    progress = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ChoiceField(choices=JobStatus.choices))
    def get_status(self, project: DatasetProject) -> str:
        return current_status(project)

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, project: DatasetProject) -> dict[str, Any]:
        return self.context["progress"][project.pk]


class ProjectInventorySerializer(ProjectSerializer):
    """A project with its whole inventory: every task, column and level."""

    tasks = serializers.SerializerMethodField()

    @extend_schema_field(TaskSerializer(many=True))
    def get_tasks(self, project: DatasetProject) -> list[dict[str, Any]]:
        tasks = project.tasks.only("id", "name", "sidecar_name", "events_files")
        return TaskSerializer(tasks, many=True, context=self.context).data


def project_data(project: DatasetProject, *, with_quality: bool = False) -> dict[str, Any]:
    """A project with its inventory in a fixed number of queries; *with_quality*: each task's quality line."""
    states = level_states(project)
    project.status = settled_status(project, states)  # "done" only while every task's sidecar answers 200
    levels: dict[int, list[LevelState]] = {}
    for state in states:
        levels.setdefault(state.level.column_id, []).append(state)
    columns: dict[int, list[DatasetColumn]] = {}
    for column in DatasetColumn.objects.filter(task__project=project).defer("template_issues"):
        columns.setdefault(column.task_id, []).append(column)
    context: dict[str, Any] = {"progress": {project.pk: with_job(project, progress(states))}, "levels": levels,
                               "columns": columns}
    if with_quality:
        context["quality"] = {task.pk: task_quality(project, task, states=[
            s for s in states if s.level.column.task_id == task.pk]).to_dict() for task in project.tasks.all()}
    return ProjectInventorySerializer(project, context=context).data


class ColumnResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    kind = serializers.CharField()
    template = serializers.SerializerMethodField()

    def get_template(self, column: DatasetColumn) -> str | None:
        return column.template or None


class LevelResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    value = serializers.CharField()
    description = serializers.CharField()
    needs_description = serializers.BooleanField()


class AnnotateResultSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="project.pk")
    status = serializers.CharField(source="project.status")
    queued = serializers.SerializerMethodField()
    sessions = serializers.SerializerMethodField()

    def get_queued(self, job: dict[str, Any]) -> int:
        return len(job["sessions"])

    def get_sessions(self, job: dict[str, Any]) -> list[str]:
        return [str(s.pk) for s in job["sessions"]]


# --- requests -------------------------------------------------------------------------------------


class DatasetUploadSerializer(serializers.Serializer):
    files = serializers.ListField(child=serializers.FileField(allow_empty_file=True), allow_empty=False,
                                  help_text="One zip of a BIDS folder, or several *_events.tsv / *_events.json.")
    name = serializers.CharField(required=False, allow_blank=True, max_length=services.MAX_NAME_CHARS)
    schema_version = serializers.CharField(
        required=False, allow_blank=True, max_length=200,
        help_text="A HEDVersion: 8.4.0, a partnered library (score_2.1.0) or a comma-separated list with prefixed "
                  "libraries (8.4.0,sc:score_1.0.0). Defaults to the dataset's.")
    concurrency = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_CONCURRENCY)
    ignore_existing_hed = serializers.BooleanField(required=False, default=False)


class ColumnPatchSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["categorical", "value", "skip"], required=False)
    template = serializers.CharField(required=False, max_length=inventory_edits.MAX_DESCRIPTION_CHARS)


class LevelPatchSerializer(serializers.Serializer):
    description = serializers.CharField(max_length=inventory_edits.MAX_DESCRIPTION_CHARS)


class AnnotateSerializer(serializers.Serializer):
    concurrency = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_CONCURRENCY)


class DatasetListCreateView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses={200: inline_serializer("DatasetProjectList", {
                       "results": ProjectSerializer(many=True)})}, operation_id="datasets_list",
                   summary="Your dataset projects (reviewers and staff: everyone's)")
    def get(self, request: Request) -> Response:
        projects = list(visible_projects(request.user)[:200])
        figures = progress_of(projects)
        listed = ProjectSerializer(projects, many=True, context={"progress": {
            p.pk: with_job(p, figures[p.pk]) for p in projects}})
        return Response({"results": listed.data})

    @extend_schema(request={"multipart/form-data": DatasetUploadSerializer},
                   responses={201: ProjectInventorySerializer},
                   summary="Upload a BIDS dataset (zip) or its events files; answers with the inventory")
    def post(self, request: Request) -> Response:
        # A form body is a QueryDict (one value per field); any other body (empty, JSON) has no files.
        fields = request.data.dict() if hasattr(request.data, "dict") else {}
        body = DatasetUploadSerializer(data={**fields, "files": request.FILES.getlist("files")})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        files = files_from_uploads(data["files"])
        project = services.import_dataset(
            user=request.user, files=files, name=data.get("name") or (data["files"][0].name or ""),
            schema_version=data.get("schema_version") or None,
            ignore_existing_hed=data["ignore_existing_hed"], concurrency=data.get("concurrency") or 4)
        return Response(project_data(project), status=status.HTTP_201_CREATED)


class DatasetDetailView(APIView):
    @extend_schema(responses={200: ProjectInventorySerializer},
                   parameters=[OpenApiParameter("quality", bool, description="Add each task's quality line "
                                                "(rows passing event checks, distinct levels, factors, open "
                                                "questions): hedtools reads the events files, so it is asked for.")],
                   summary="A project: status, progress and the whole inventory")
    def get(self, request: Request, pk: Any) -> Response:
        wanted = request.query_params.get("quality", "")
        if wanted not in ("", "0", "1", "true", "false"):
            raise ValidationError({"quality": ["quality must be 1 or 0 (true or false)"]})
        return Response(project_data(project_for(request.user, pk), with_quality=wanted in ("1", "true")))


class DatasetColumnView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(request=ColumnPatchSerializer, responses={200: ColumnResultSerializer},
                   summary="Change a column's kind, or a value column's # template")
    def patch(self, request: Request, pk: Any, column_id: int) -> Response:
        project = project_for_edit(request.user, pk)
        column = get_object_or_404(DatasetColumn.objects.select_related("task__project"), pk=column_id,
                                   task__project=project)
        body = ColumnPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if not body.validated_data:
            raise ValidationError({"kind": ["give kind or template"]})
        if "kind" in body.validated_data:
            inventory_edits.set_column_kind(column, body.validated_data["kind"])
        if "template" in body.validated_data:
            inventory_edits.set_column_template(column, body.validated_data["template"])
        return Response(ColumnResultSerializer(column).data)


class DatasetLevelView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(request=LevelPatchSerializer, responses={200: LevelResultSerializer},
                   summary="Give a level a description (annotate it again for it to count)")
    def patch(self, request: Request, pk: Any, level_id: int) -> Response:
        project = project_for_edit(request.user, pk)
        level = get_object_or_404(DatasetLevel, pk=level_id, column__task__project=project)
        body = LevelPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        inventory_edits.set_level_description(level, body.validated_data["description"])
        return Response(LevelResultSerializer(level).data)


class DatasetAnnotateView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(request=AnnotateSerializer, responses={202: AnnotateResultSerializer},
                   summary="Annotate every level that has no annotation yet (accepted ones are skipped)")
    def post(self, request: Request, pk: Any) -> Response:
        project = project_for_edit(request.user, pk)
        body = AnnotateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # Past HEDIT_DATASET_RATE a 429, while the project is being annotated a 409 (annotations.api.exceptions).
        sessions = services.start_annotation(project, user=request.user,
                                             concurrency=body.validated_data.get("concurrency"))
        project.refresh_from_db()
        return Response(AnnotateResultSerializer({"project": project, "sessions": sessions}).data,
                        status=status.HTTP_202_ACCEPTED)


class DatasetSidecarView(APIView):
    @extend_schema(parameters=[OpenApiParameter("task", str, description="The task (optional with one task).")],
                   responses={200: OpenApiTypes.OBJECT},
                   summary="A task's events.json; X-HED-Valid says whether it and every events file validate",
                   description="Answers from the stored, validated sidecar at once. While the latest annotations "
                               "are being composed and validated it answers 202 with status `validating` and "
                               "Retry-After.")
    def get(self, request: Request, pk: Any) -> Response:
        project = project_for(request.user, pk)
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
        result = current_sidecar(project, task)
        if result.pending:  # validated in the background; asked for just now if nobody had
            response = Response({"status": "validating", "detail": f"the sidecar of task {task.name!r} is being "
                                 "composed and validated for the latest annotations; ask again shortly"},
                                status=status.HTTP_202_ACCEPTED)
            response["Retry-After"] = "5"
            return response
        response = Response(result.sidecar)
        response["X-HED-Valid"] = "true" if result.is_valid else "false"
        response["Content-Disposition"] = content_disposition_header(False, task.sidecar_name)
        return response


class DatasetDownloadView(APIView):
    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY},
                   summary="The dataset's events files and sidecars, with the new sidecars in place, as a zip",
                   description="What an upload keeps: every *_events.tsv and *_events.json and "
                               "dataset_description.json, with each task's new sidecar at the root. Not the whole "
                               "dataset: recordings and other files are never uploaded into the portal.")
    def get(self, request: Request, pk: Any) -> FileResponse:
        project = project_for(request.user, pk)
        return zip_response(project, f"dataset-{project.pk}{ZIP_SUFFIX}")
