"""Answering the lab's questions once for the whole project: one answer serves every task that asks it.

Tasks of one dataset often share their columns, so the same column and level is asked about in each of them
(8 tasks asked 217 questions, 37 of them distinct). Here a question is the column name and level, whatever the
task: an answer becomes the description of that level in every task, and all the levels it answered are queued
for annotation again at once (:func:`.answers.queue_answer`), so the answers' drain drafts each column once with
every answered level and its siblings in view, rather than one request per answer. A lab's table (the
``--questions``/``--descriptions`` TSV) is applied the same way: all of it, or nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotations.access import check_edit_project
from annotations.datasets import inventory_edits, services
from annotations.datasets.answers import queue_answer
from annotations.limits import check_level_quota
from annotations.models import (
    AnnotationSession,
    ColumnKind,
    DatasetColumn,
    DatasetLevel,
    DatasetProject,
    JobStatus,
)
from bidsdata.questions import Answer, AnswersError, read_answers

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableAnswered:
    """What a lab's table did: descriptions stored (rows of the table) and the level runs it queued."""

    rows: int
    sessions: list[AnnotationSession]


def same_levels(project: DatasetProject, level: DatasetLevel) -> list[DatasetLevel]:
    """*level* and the levels of the same name in the same-named categorical column of every other task."""
    found = list(DatasetLevel.objects.select_related("column__task").filter(
        column__task__project=project, column__kind=ColumnKind.CATEGORICAL, column__name=level.column.name,
        value=level.value).order_by("column__task__name", "pk"))
    return found or [level]


def same_columns(project: DatasetProject, column: DatasetColumn) -> list[DatasetColumn]:
    """*column* and the columns of the same name and kind in every other task."""
    found = list(DatasetColumn.objects.select_related("task").filter(
        task__project=project, kind=column.kind, name=column.name).order_by("task__name", "pk"))
    return found or [column]


def answer_everywhere(project: DatasetProject, *, user: Any, answer: Any, level: DatasetLevel | None = None,
                      column: DatasetColumn | None = None) -> list[AnnotationSession]:
    """The lab's answer to a question becomes the description in every task that asks it; each answered level
    is annotated again (all queued at once). Returns the level runs (none for a column's question).

    Refused: (400) empty or overlong, (429) past ``HEDIT_DATASET_RATE``
    for the levels it re-runs, (403) for anyone but the owner; nothing is stored then.
    """
    check_edit_project(user, project)
    if (level is None) == (column is None):
        raise services.DatasetRequestError("level_id", "give the level (or, for a column's question, the column) "
                                           "answered")
    text = inventory_edits.clean_text(answer, "answer")
    if column is not None:
        columns = same_columns(project, column)
        with transaction.atomic():
            for found in columns:
                inventory_edits.set_column_description(found, text)
            tasks = {found.task_id for found in columns}
            transaction.on_commit(lambda: [queue_answer(project.pk, task) for task in sorted(tasks)])
        column.description, column.needs_description = text, False
        return []
    levels = same_levels(project, level)
    sessions = _describe_and_run(project, user, [(found, text) for found in levels])
    for found in levels:
        if found.pk == level.pk:
            level.description, level.needs_description = found.description, found.needs_description
    return sessions


def _describe_and_run(project: DatasetProject, user: Any,
                      described: list[tuple[DatasetLevel, str]]) -> list[AnnotationSession]:
    """Store each level's description and queue one run per level, in one transaction and one burst of notes."""
    if not described:
        return []
    with transaction.atomic():
        locked = DatasetProject.objects.select_for_update().get(pk=project.pk)
        check_level_quota(services.quota_user(user, project), len(described))
        for level, text in described:
            inventory_edits.set_level_description(level, text)
        sessions = services.create_level_sessions(project, [level for level, _ in described], user=user)
        if locked.status != JobStatus.ANNOTATING or locked.error:
            DatasetProject.objects.filter(pk=project.pk).update(status=JobStatus.ANNOTATING, error="")
            project.status, project.error = JobStatus.ANNOTATING, ""
        notes = [(level.column.task_id, session.pk) for (level, _), session in zip(described, sessions, strict=True)]

        def note_all() -> None:
            for task_id, session_id in notes:
                queue_answer(project.pk, task_id, session_id)

        transaction.on_commit(note_all)
    logger.info("dataset %s: %d answered level(s) queued to be annotated again", project.pk, len(sessions))
    return sessions


@dataclass(frozen=True)
class _Named:
    """A lab's answers as the columns and levels they describe, in every task that has them."""

    columns: list[tuple[DatasetColumn, str]]
    levels: list[tuple[DatasetLevel, str]]  # one per level: a later row naming it again wins


def _named(project: DatasetProject, answers: Iterable[Answer], field: str, *, skipped: bool,
           level_text: Callable[[str], str]) -> _Named:
    """Each answer's column (by name, in every task) and level; a column or level no task has is refused
    under *field*. *skipped*: skipped columns are answered too; *level_text* reads a level's description."""
    columns: dict[str, list[DatasetColumn]] = {}
    found_columns = DatasetColumn.objects.filter(task__project=project)
    if not skipped:
        found_columns = found_columns.exclude(kind=ColumnKind.SKIP)
    for found in found_columns.select_related("task").prefetch_related("levels"):
        columns.setdefault(found.name, []).append(found)
    described: dict[int, tuple[DatasetLevel, str]] = {}
    column_texts: list[tuple[DatasetColumn, str]] = []
    for answer in answers:
        named = columns.get(answer.column)
        if not named:
            raise services.DatasetRequestError(field, f"no column {answer.column!r} in this dataset")
        if answer.level is None:
            column_texts.extend((found, answer.description) for found in named)
            continue
        levels = [lv for found in named for lv in found.levels.all() if lv.value == answer.level]
        if not levels:
            raise services.DatasetRequestError(field, f"column {answer.column!r} has no level {answer.level!r}")
        for found_level in levels:
            found_level.column = next(c for c in named if c.pk == found_level.column_id)
            described[found_level.pk] = (found_level, level_text(answer.description))
    return _Named(columns=column_texts, levels=list(described.values()))


def apply_descriptions(project: DatasetProject, answers: list[Answer]) -> int:
    """Descriptions from a lab's table (the command line's ``--descriptions``), all or nothing, before any run:
    stored, nothing annotated again (:func:`answer_table` is the same table answered on a project's page).

    A column is looked up in every task; a column or level no task has is refused, naming it. Returns the
    number of descriptions stored.
    """
    named = _named(project, answers, "descriptions", skipped=True, level_text=str)
    with transaction.atomic():
        for column, description in named.columns:
            inventory_edits.set_column_description(column, description)
        for level, description in named.levels:
            inventory_edits.set_level_description(level, description)
    return len(answers)


def answer_table(project: DatasetProject, *, user: Any, text: str) -> TableAnswered:
    """A lab's filled questions table (TSV: column, level, description): every row applied to every task that
    has the column, the answered levels annotated again in one burst. All or nothing.

    Raises:
        DatasetRequestError: (400, field ``table``) a table that cannot be read, or names a column or level
            no task has; (429) past ``HEDIT_DATASET_RATE``.
    """
    check_edit_project(user, project)
    try:
        answers = read_answers(text)
    except AnswersError as exc:
        raise services.DatasetRequestError("table", str(exc)) from None
    if not answers:
        raise services.DatasetRequestError("table", "the table has no filled description: write the meaning of each "
                                           "level in its description cell")
    named = _named(project, answers, "table", skipped=False,
                   level_text=lambda text: inventory_edits.clean_text(text, "table"))
    column_texts, described = named.columns, named.levels
    with transaction.atomic():
        for found, description in column_texts:
            inventory_edits.set_column_description(found, inventory_edits.clean_text(description, "table"))
        sessions = _describe_and_run(project, user, described)
        tasks = {found.task_id for found, _ in column_texts}
        if tasks:
            transaction.on_commit(lambda: [queue_answer(project.pk, task) for task in sorted(tasks)])
    return TableAnswered(rows=len(answers), sessions=sessions)


__all__ = ["TableAnswered", "answer_everywhere", "answer_table", "apply_descriptions", "same_columns", "same_levels"]
