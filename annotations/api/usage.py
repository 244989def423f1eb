"""REST API for using a project's annotations: HED search, design matrices, tag summaries, acceptance rules.

``GET /api/datasets/<id>/search/?q=...`` answers counts per task and a page of matching rows (``output=tsv``:
every matching row, streamed); ``/design/?task=`` the design matrices as a zip; ``/summary/`` the tag counts;
``/rules/`` and ``/rules/<rule_id>/`` the acceptance rules (reading: anyone who sees the project; writing:
its owner and staff). Same visibility as the other dataset endpoints: another user's project is a 404.
Thin views over :mod:`annotations.usage`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from typing import Any

from django.http import FileResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.access import check_edit_project
from annotations.api.parsers import BoundedJSONParser
from annotations.datasets.selectors import project_for, project_for_edit
from annotations.models import AcceptanceRule, DatasetProject, DatasetTask, Expectation
from annotations.usage import acceptance, services
from annotations.usage.revisions import project_tasks
from bidsdata.limits import MAX_NAME_CHARS, MAX_TASK_CHARS
from bidsdata.usage.assembly import TYPE_TAGS
from bidsdata.usage.design import ENCODINGS, DesignError

SEARCH_PARAMETERS = [
    OpenApiParameter("q", str, many=True, required=True,
                     description="A HED query in hedtools' syntax (repeat for several; at most 2,000 characters "
                                 "each)."),
    OpenApiParameter("task", str, description="Only this task (needed for rows when the dataset has several)."),
    OpenApiParameter("revision", str, description="A stored sidecar's digest (8+ characters) or `uploaded`; "
                                                  "default: the task's newest validated sidecar."),
    OpenApiParameter("context", bool, description="Search each row with its ongoing events (default true)."),
    OpenApiParameter("expand_defs", bool, description="Replace each Def/... with its definition (default false)."),
    OpenApiParameter("remove_types", str, description="Comma-separated type tags to take out first "
                                                      f"({', '.join(TYPE_TAGS)})."),
    OpenApiParameter("page", int, description="Page of matching rows (50 a page)."),
    OpenApiParameter("output", str, enum=["json", "tsv"], description="tsv: every matching row of the task "
                                                                       "(file, row, onset, a 0/1 per query, hed), "
                                                                       "streamed."),
]


def _flag(request: Request, name: str, default: bool) -> bool:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if value.lower() not in ("1", "0", "true", "false"):
        raise ValidationError({name: [f"{name} must be true or false"]})
    return value.lower() in ("1", "true")


def _page(request: Request) -> int:
    try:
        page = int(request.query_params.get("page") or 1)
    except ValueError:
        raise ValidationError({"page": ["page must be a whole number"]}) from None
    if page < 1:
        raise ValidationError({"page": ["page must be 1 or more"]})
    return page


def _tasks(project: DatasetProject, name: str | None) -> list[DatasetTask]:
    tasks = project_tasks(project)
    if not name:
        return tasks
    chosen = [t for t in tasks if t.name == name]
    if not chosen:
        raise NotFound(f"no task {name!r}; this dataset has: {', '.join(t.name for t in tasks)}")
    return chosen


def _row(row: Any) -> dict[str, Any]:
    return {"file": row.path, "row": row.row, "onset": row.onset, "answers": row.answers, "hed": row.hed}


class SearchTaskSerializer(serializers.Serializer):
    task = serializers.CharField()
    revision = serializers.CharField(help_text="The sidecar searched: a stored result's digest, or `uploaded`.")
    files = serializers.IntegerField()
    rows = serializers.IntegerField(help_text="Events as hedtools assembles them (rows, and Delay groups).")
    matches = serializers.DictField(child=serializers.IntegerField(), help_text="query -> matching rows")
    refused = serializers.DictField(child=serializers.CharField(), help_text="events file -> why hedtools refused it")
    per_file = serializers.ListField(child=serializers.DictField())


class DatasetSearchView(APIView):
    @extend_schema(parameters=SEARCH_PARAMETERS, operation_id="datasets_search", responses={200: inline_serializer(
        "DatasetSearch", {"schema": serializers.JSONField(), "queries": serializers.ListField(
            child=serializers.CharField()), "options": serializers.DictField(), "tasks": SearchTaskSerializer(
            many=True), "rows": serializers.DictField(help_text="task, page, pages, count and results (file, row "
                                                               "(0-based), onset, answers (0/1 per query), hed)")}),
        (200, "text/tab-separated-values"): OpenApiTypes.STR},
        summary="Search a dataset's events with HED queries: counts per task and file, and paged rows",
        description="Rows are assembled as hedtools assembles them (EventManager, HedTagManager). A malformed "
                    "query is a 400 naming hedtools' message and the character it fails at.")
    def get(self, request: Request, pk: Any) -> Any:
        project = project_for(request.user, pk)
        queries = services.clean_queries(request.query_params.getlist("q"))
        options = services.options_of(context=_flag(request, "context", True),
                                      expand_defs=_flag(request, "expand_defs", False),
                                      remove_types=request.query_params.get("remove_types", ""))
        name = request.query_params.get("task")
        tasks = _tasks(project, name)
        page = _page(request)
        wanted = request.query_params.get("output", "json")
        if wanted not in ("json", "tsv"):
            raise ValidationError({"output": ["output must be json or tsv"]})
        if wanted == "tsv" and len(tasks) != 1:
            raise ValidationError({"task": ["choose a task to download its rows"]})
        revision = request.query_params.get("revision") or None
        if revision and len(tasks) != 1:
            raise ValidationError({"revision": ["a revision belongs to one task: give task too"]})
        searches = [services.search_task(request.user, project, task, queries, options, revision=revision,
                                         scope="api", count=i == 0) for i, task in enumerate(tasks)]
        if wanted == "tsv":
            response = StreamingHttpResponse(searches[0].tsv(), content_type="text/tab-separated-values")
            response["Content-Disposition"] = content_disposition_header(True, f"task-{tasks[0].name}_search.tsv")
            return response
        shown = searches[0] if len(searches) == 1 else None
        rows = ({"task": shown.task.name, "page": page, "pages": shown.pages, "count": shown.counts.any_matches,
                 "results": [_row(r) for r in shown.page(page)]} if shown else None)
        return Response({
            "schema": searches[0].events.version if searches else project.schema_version, "queries": queries,
            "options": options.to_dict(),
            "tasks": [{"task": s.task.name, "revision": s.revision.name, "files": s.events.files,
                       "rows": s.counts.events, "matches": dict(zip(queries, s.counts.matches, strict=True)),
                       "refused": {f.path: f.refused for f in s.counts.refused},
                       "per_file": [{"file": f.path, "rows": f.events, "matches": f.matches}
                                    for f in s.counts.files]} for s in searches],
            "rows": rows})


class DatasetDesignView(APIView):
    @extend_schema(parameters=[
        OpenApiParameter("task", str, description="The task (optional with one task)."),
        OpenApiParameter("type", str, enum=list(TYPE_TAGS), description="Default Condition-variable."),
        OpenApiParameter("encoding", str, enum=list(ENCODINGS), description="Default one-hot.")],
        responses={(200, "application/zip"): OpenApiTypes.BINARY}, operation_id="datasets_design",
        summary="A task's design matrices (hedtools' get_factor_vectors), one TSV per events file, as a zip")
    def get(self, request: Request, pk: Any) -> FileResponse:
        project = project_for(request.user, pk)
        tasks = _tasks(project, request.query_params.get("task"))
        if len(tasks) != 1:
            raise ValidationError({"task": ["this dataset has several tasks; choose one of: "
                                            + ", ".join(t.name for t in tasks)]})
        type_tag = request.query_params.get("type") or "Condition-variable"
        encoding = request.query_params.get("encoding") or "one-hot"
        spool = tempfile.SpooledTemporaryFile(max_size=8 * 2**20)  # noqa: SIM115 - FileResponse closes it
        try:
            services.write_design_zip(request.user, project, tasks[0], type_tag, encoding, spool, scope="api")
        except DesignError as exc:
            spool.close()
            raise ValidationError({"type": [str(exc)]}) from None
        except BaseException:
            spool.close()
            raise
        spool.seek(0)
        return FileResponse(spool, as_attachment=True, content_type="application/zip",
                            filename=f"task-{tasks[0].name}_{type_tag.casefold()}_{encoding}_design.zip")


class DatasetSummaryView(APIView):
    @extend_schema(parameters=[OpenApiParameter("task", str, description="Only this task.")],
                   responses={200: OpenApiTypes.OBJECT}, operation_id="datasets_summary",
                   summary="Tag counts per task (hedtools' HedTagCounts), grouped, and the condition factors")
    def get(self, request: Request, pk: Any) -> Response:
        project = project_for(request.user, pk)
        tasks = _tasks(project, request.query_params.get("task"))
        found = {task.name: services.task_summary(request.user, project, task, scope="api", count=i == 0)
                 for i, task in enumerate(tasks)}
        return Response({"tasks": found})


class RuleSerializer(serializers.ModelSerializer):
    verdicts = serializers.SerializerMethodField(help_text="Per task: passed, matches, expected, message, digest "
                                                           "(the verdict on its newest validated sidecar).")

    class Meta:
        model = AcceptanceRule
        fields = ["id", "name", "task", "query", "expect", "column", "level", "include_context", "replace_defs",
                  "created_at", "verdicts"]
        read_only_fields = ["id", "created_at", "verdicts"]

    def get_verdicts(self, rule: AcceptanceRule) -> dict[str, Any]:
        found = {}
        for verdict in self.context.get("verdicts", []):
            checks = [c for c in verdict.failing + verdict.passing if c.rule_id == rule.pk]
            if checks:
                c = checks[0]
                found[verdict.task.name] = {"passed": c.passed, "matches": c.matches, "expected": c.expected,
                                            "message": c.message, "digest": c.digest}
        return found


class RuleWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    query = serializers.CharField(max_length=2000)
    expect = serializers.ChoiceField(choices=Expectation.choices)
    task = serializers.CharField(max_length=MAX_TASK_CHARS, required=False, allow_blank=True, default="")
    column = serializers.CharField(max_length=MAX_NAME_CHARS, required=False, allow_blank=True, default="")
    level = serializers.CharField(max_length=MAX_NAME_CHARS, required=False, allow_blank=True, default="")
    include_context = serializers.BooleanField(required=False, default=False)
    replace_defs = serializers.BooleanField(required=False, default=True)


def _verdicts(project: DatasetProject) -> list[acceptance.TaskAcceptance]:
    rules = list(project.acceptance_rules.all())
    return [acceptance.task_acceptance(task, rules) for task in project_tasks(project)]


class AcceptanceRuleListView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(responses={200: RuleSerializer(many=True)}, operation_id="datasets_rules_list",
                   summary="A project's acceptance rules, each with its verdict per task")
    def get(self, request: Request, pk: Any) -> Response:
        project = project_for(request.user, pk)
        rules = list(project.acceptance_rules.all())
        return Response(RuleSerializer(rules, many=True, context={"verdicts": _verdicts(project)}).data)

    @extend_schema(request=RuleWriteSerializer, responses={201: RuleSerializer}, operation_id="datasets_rules_create",
                   summary="Add an acceptance rule (checked at once on each task's newest sidecar)")
    def post(self, request: Request, pk: Any) -> Response:
        project = project_for_edit(request.user, pk)
        body = RuleWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        rule = acceptance.create_rule(project, **body.validated_data)
        for task in project_tasks(project):
            if rule.applies_to(task.name):
                acceptance.check_now(project, task)
        return Response(RuleSerializer(rule, context={"verdicts": _verdicts(project)}).data,
                        status=status.HTTP_201_CREATED)


class AcceptanceRuleDetailView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    def _rule(self, request: Request, pk: Any, rule_id: int) -> tuple[DatasetProject, AcceptanceRule]:
        project = project_for(request.user, pk)
        return project, get_object_or_404(AcceptanceRule, pk=rule_id, project=project)

    @extend_schema(responses={200: RuleSerializer}, operation_id="datasets_rules_read", summary="One rule")
    def get(self, request: Request, pk: Any, rule_id: int) -> Response:
        project, rule = self._rule(request, pk, rule_id)
        return Response(RuleSerializer(rule, context={"verdicts": _verdicts(project)}).data)

    @extend_schema(request=RuleWriteSerializer, responses={200: RuleSerializer}, operation_id="datasets_rules_update",
                   summary="Change a rule (checked again at once)")
    def patch(self, request: Request, pk: Any, rule_id: int) -> Response:
        project, rule = self._rule(request, pk, rule_id)
        check_edit_project(request.user, project)
        if not isinstance(request.data, Mapping):
            raise ValidationError({"non_field_errors": ["send the rule's fields as an object"]})
        current = {f: getattr(rule, f) for f in RuleWriteSerializer().fields}
        body = RuleWriteSerializer(data={**current, **request.data})
        body.is_valid(raise_exception=True)
        acceptance.update_rule(rule, **body.validated_data)
        for task in project_tasks(project):
            if rule.applies_to(task.name):
                acceptance.check_now(project, task)
        return Response(RuleSerializer(rule, context={"verdicts": _verdicts(project)}).data)

    @extend_schema(responses={204: None}, operation_id="datasets_rules_delete", summary="Delete a rule")
    def delete(self, request: Request, pk: Any, rule_id: int) -> Response:
        project, rule = self._rule(request, pk, rule_id)
        check_edit_project(request.user, project)
        rule.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
