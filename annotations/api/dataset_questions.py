"""REST API of a project's open questions for the lab: list them, answer one.

``GET /api/datasets/<id>/questions/`` lists them, each once however many tasks ask it (column, level, text, the
tasks it serves and their level ids); ``POST`` with ``level_id`` (or ``column`` and ``level``) and ``answer``
makes the answer the description in every task that asks it and annotates those levels again (202 with the
new runs). Same visibility as the other
dataset endpoints: another user's project is a 404. Thin views over
:mod:`annotations.datasets.questions` and :func:`annotations.datasets.question_answers.answer_everywhere`.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.parsers import BoundedJSONParser
from annotations.datasets.inventory_edits import MAX_DESCRIPTION_CHARS
from annotations.datasets.question_answers import answer_everywhere
from annotations.datasets.questions import (
    OpenQuestion,
    SharedQuestion,
    project_questions,
    question_about,
    shared_questions,
)
from annotations.datasets.selectors import project_for, project_for_edit
from annotations.models import ColumnKind, DatasetColumn, DatasetLevel, DatasetProject
from bidsdata.limits import MAX_NAME_CHARS, MAX_TASK_CHARS


class QuestionSerializer(serializers.Serializer):
    task = serializers.CharField(source="first.task.name", help_text="The first task that asks it.")
    tasks = serializers.ListField(child=serializers.CharField(), help_text="Every task the answer serves.")
    level_ids = serializers.SerializerMethodField(help_text="The level in each task (empty for a column).")
    count = serializers.IntegerField(help_text="Rows of the level over every task.")
    column = serializers.CharField(source="column.name")
    column_id = serializers.IntegerField(source="column.pk")
    level = serializers.SerializerMethodField()
    level_id = serializers.SerializerMethodField()
    text = serializers.CharField()

    def get_level_ids(self, question: SharedQuestion) -> list[int]:
        return [q.level.pk for q in question.asked if q.level is not None]

    def get_level(self, question: OpenQuestion) -> str | None:
        return question.level.value if question.level is not None else None

    def get_level_id(self, question: OpenQuestion) -> int | None:
        return question.level.pk if question.level is not None else None


class AnswerSerializer(serializers.Serializer):
    level_id = serializers.IntegerField(required=False, min_value=1, help_text="The level answered about.")
    task = serializers.CharField(required=False, max_length=MAX_TASK_CHARS,
                                 help_text="With column: when several tasks have it.")
    column = serializers.CharField(required=False, max_length=MAX_NAME_CHARS,
                                   help_text="Instead of level_id: the column...")
    level = serializers.CharField(required=False, allow_null=True, max_length=MAX_NAME_CHARS,
                                  help_text="...and its level (null or absent: the question about the column).")
    answer = serializers.CharField(max_length=MAX_DESCRIPTION_CHARS, help_text="What it means.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "level_id" not in attrs and not attrs.get("column"):
            raise ValidationError({"level_id": ["give level_id, or column (and level)"]})
        if "level_id" in attrs and (attrs.get("column") or attrs.get("level")):
            raise ValidationError({"level_id": ["give level_id or column and level, not both"]})
        return attrs


class AnsweredQuestionSerializer(serializers.Serializer):
    task = serializers.CharField(source="task.name")
    column = serializers.CharField(source="column.name")
    column_id = serializers.IntegerField(source="column.pk")
    level = serializers.CharField(source="level.value", allow_null=True, default=None)
    level_id = serializers.IntegerField(source="level.pk", allow_null=True, default=None)
    text = serializers.CharField()


class AnsweredSerializer(serializers.Serializer):
    question = AnsweredQuestionSerializer()
    description = serializers.CharField()
    session = serializers.UUIDField(allow_null=True, help_text="The level's new run (null for a column).")
    sessions = serializers.ListField(child=serializers.UUIDField(),
                                     help_text="The new run of each task's level (none for a column).")
    status = serializers.CharField(help_text="The level's status now (queued); null for a column.",
                                   allow_null=True)


def _target(project: DatasetProject, data: dict[str, Any]) -> tuple[DatasetLevel | None, DatasetColumn | None]:
    """The level (or column) a request answers about; 404 when the project has none such, 400 when ambiguous."""
    if "level_id" in data:
        level = (DatasetLevel.objects.select_related("column__task")
                 .filter(pk=data["level_id"], column__task__project=project).first())
        if level is None:
            raise NotFound(f"no level {data['level_id']} in this dataset")
        return level, None
    columns = list(DatasetColumn.objects.select_related("task").filter(
        task__project=project, name=data["column"]).exclude(kind=ColumnKind.SKIP))
    if data.get("task"):
        columns = [c for c in columns if c.task.name == data["task"]]
    if not columns:
        raise NotFound(f"no column {data['column']!r} in this dataset"
                       + (f" (task {data['task']})" if data.get("task") else ""))
    if all(c.kind == ColumnKind.VALUE for c in columns):  # its question is answered by a template or a skip
        raise ValidationError({"column": [f"column {data['column']!r} is a value column: PATCH it (columns/<id>/) "
                                          "with a template that carries its values, or kind skip"]})
    columns = [c for c in columns if c.kind == ColumnKind.CATEGORICAL]
    # Several tasks may have the column: the answer serves all of them (question_answers), so any one will do.
    if data.get("level") in (None, ""):
        return None, columns[0]
    for column in columns:
        level = column.levels.filter(value=data["level"]).first()
        if level is not None:
            level.column = column
            return level, None
    raise NotFound(f"column {data['column']!r} has no level {data['level']!r}")


class DatasetQuestionsView(APIView):
    parser_classes = [BoundedJSONParser, JSONParser, FormParser]

    @extend_schema(responses={200: inline_serializer("DatasetQuestionList", {
                       "results": QuestionSerializer(many=True)})}, operation_id="datasets_questions_list",
                   summary="Open questions for the lab: levels and columns nobody said the meaning of")
    def get(self, request: Request, pk: Any) -> Response:
        asked = shared_questions(project_questions(project_for(request.user, pk)))
        return Response({"results": QuestionSerializer(asked, many=True).data})

    @extend_schema(request=AnswerSerializer, responses={200: AnsweredSerializer, 202: AnsweredSerializer},
                   operation_id="datasets_questions_answer",
                   summary="Answer one: the answer becomes the description; a level is annotated again (202)")
    def post(self, request: Request, pk: Any) -> Response:
        project = project_for_edit(request.user, pk)  # reviewers see the questions; the owner answers them (403)
        body = AnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        level, column = _target(project, body.validated_data)
        # 400 for an empty answer, 429 past HEDIT_DATASET_RATE (annotations.api.exceptions).
        sessions = answer_everywhere(project, user=request.user, answer=body.validated_data["answer"],
                                     level=level, column=column)
        mine = next((s for s in sessions if level is not None and s.dataset_level_id == level.pk), None)
        question = question_about(level=level, column=column)
        described = level.description if level is not None else column.description
        answered = {"question": question, "description": described,
                    "session": mine.pk if mine is not None else None,
                    "sessions": [s.pk for s in sessions],
                    "status": mine.status if mine is not None else None}
        return Response(AnsweredSerializer(answered).data,
                        status=status.HTTP_202_ACCEPTED if sessions else status.HTTP_200_OK)
