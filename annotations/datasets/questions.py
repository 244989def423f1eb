"""A project's open questions for the lab, read from what the project page and the API already hold.

The questions themselves are :mod:`bidsdata.questions`' (pure); this module builds its inventory from the
stored columns and level states and maps each question back to its column and level rows, so the page can
put an answer box on it and the API can name the level's id. Tasks sharing a column ask the same question each;
:func:`shared_questions` makes them one (same column name and level), which the page, the API and the lab's table
show, and :mod:`.question_answers` answers for every task at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from annotations.datasets.selectors import LevelState, level_states
from annotations.models import ColumnKind, DatasetColumn, DatasetLevel, DatasetProject, DatasetTask, SidecarResult
from bidsdata.inventory import ColumnInventory, LevelInventory, TaskInventory
from bidsdata.questions import (
    column_question,
    left_out_questions,
    level_question,
    open_questions,
    untemplated_example,
)

_CODE = re.compile(r"`([^`]*)`")


@dataclass
class OpenQuestion:
    """A question about a column (``level`` is ``None``) or one of its levels, with their rows."""

    task: DatasetTask
    column: DatasetColumn
    level: DatasetLevel | None
    text: str
    state: LevelState | None = None

    @property
    def key(self) -> str:
        """A stable id for the page: ``q-<column id>`` or ``q-<column id>-<level id>``."""
        return f"q-{self.column.pk}" + (f"-{self.level.pk}" if self.level is not None else "")

    @property
    def plain(self) -> str:
        return self.text.replace("`", "")

    @property
    def parts(self) -> list[tuple[str, bool]]:
        """The text in pieces, each with whether it is a name (written `like this`), for a page to set apart."""
        pieces = _CODE.split(self.text)
        return [(piece, index % 2 == 1) for index, piece in enumerate(pieces) if piece]


def question_about(*, level: DatasetLevel | None = None, column: DatasetColumn | None = None) -> OpenQuestion:
    """The question about *level* (its column and task attached) or *column* (its task attached), open or not."""
    if level is not None:
        column = level.column
        codes = list(column.levels.order_by("pk").values_list("value", flat=True))
        return OpenQuestion(task=column.task, column=column, level=level,
                            text=level_question(column.name, level.value, codes))
    assert column is not None
    example = untemplated_example(ColumnInventory(name=column.name, kind=column.kind, description="",
                                                  samples=list(column.sample_values or [])))
    return OpenQuestion(task=column.task, column=column, level=None, text=column_question(column.name, example))


def project_questions(project: DatasetProject, *, states: list[LevelState] | None = None,
                      columns: list[DatasetColumn] | None = None,
                      tasks: list[DatasetTask] | None = None) -> list[OpenQuestion]:
    """Every open question of *project*, task by task, column by column.

    Give the *states*, *columns* and *tasks* a caller has read already and no query is made.
    """
    states = level_states(project) if states is None else states
    if columns is None:  # value columns too: one whose free text no template carries gets a question
        columns = list(DatasetColumn.objects.filter(task__project=project)
                       .exclude(kind=ColumnKind.SKIP).defer("template_issues"))
    if tasks is None:
        tasks = list(project.tasks.only("id", "project_id", "name", "sidecar_name"))
    left_out = _left_out(tasks)
    by_column: dict[int, list[LevelState]] = {}
    for state in states:
        by_column.setdefault(state.level.column_id, []).append(state)
    found: list[OpenQuestion] = []
    for task in tasks:
        mine = [c for c in columns if c.task_id == task.pk and c.kind != ColumnKind.SKIP]
        inventory = TaskInventory(task=task.name, sidecar_name=task.sidecar_name, events_files=[], columns=[
            ColumnInventory(name=c.name, kind=c.kind, description=c.description,
                            needs_description=c.needs_description,
                            samples=list(c.sample_values or []) if c.kind == ColumnKind.VALUE else [],
                            levels=[LevelInventory(value=s.level.value, count=s.level.count,
                                                   description=s.level.description,
                                                   needs_description=s.level.needs_description)
                                    for s in by_column.get(c.pk, [])])
            for c in mine])
        named = {c.name: c for c in mine}
        asked = open_questions(inventory)
        seen = {(q.column, q.level) for q in asked}
        # What the last composition left out for breaking validation is asked too (or said as the data's fix).
        asked += [q for q in left_out_questions(left_out.get(task.pk, ()))
                  if (q.column, q.level) not in seen and q.column in named]
        for question in asked:
            column = named[question.column]
            state = next((s for s in by_column.get(column.pk, []) if s.level.value == question.level), None)
            if question.level is not None and state is None:
                continue  # a level the inventory no longer has
            found.append(OpenQuestion(task=task, column=column, level=state.level if state else None,
                                      text=question.text, state=state))
    return found


def open_question_count(project: DatasetProject, task: DatasetTask, states: list[LevelState]) -> int:
    """How many questions *task* asks the lab: its columns' and its levels' (:func:`project_questions`), the one
    count the task card, the API and the command line's report give. *states* are the task's level states."""
    return sum(1 for q in project_questions(project, states=states, tasks=[task]) if q.task.pk == task.pk)


def _left_out(tasks: list[DatasetTask]) -> dict[int, list[Any]]:
    """Per task, the levels and templates its newest stored sidecar left out whole (no HED of their own, not
    merely given by another column): one query for every task."""
    newest: dict[int, list[Any]] = {}
    rows = (SidecarResult.objects.filter(task__in=[t.pk for t in tasks]).order_by("task_id", "-created_at", "-id")
            .values_list("task_id", "dropped"))
    for task_id, dropped in rows:
        if task_id in newest:
            continue
        newest[task_id] = [SimpleNamespace(**note) for note in dropped or ()
                           if isinstance(note, dict) and not note.get("redundant")
                           and (not note.get("items") or note.get("fix"))]
    return newest


@dataclass
class SharedQuestion:
    """One question asked in one or more tasks (same column name and level): answered once, for all of them."""

    asked: list[OpenQuestion]

    @property
    def first(self) -> OpenQuestion:
        return self.asked[0]

    @property
    def key(self) -> str:
        return self.first.key

    @property
    def text(self) -> str:
        return self.first.text

    @property
    def plain(self) -> str:
        return self.first.plain

    @property
    def parts(self) -> list[tuple[str, bool]]:
        return self.first.parts

    @property
    def column(self) -> DatasetColumn:
        return self.first.column

    @property
    def level(self) -> DatasetLevel | None:
        return self.first.level

    @property
    def state(self) -> LevelState | None:
        return self.first.state

    @property
    def tasks(self) -> list[str]:
        return [q.task.name for q in self.asked]

    @property
    def count(self) -> int:
        """The rows the question is about, over every task that asks it."""
        return sum(q.level.count for q in self.asked if q.level is not None)


def shared_questions(questions: list[OpenQuestion]) -> list[SharedQuestion]:
    """*questions* with the same column name and level across tasks made one, in the order first asked."""
    found: dict[tuple[str, str | None], SharedQuestion] = {}
    for question in questions:
        ident = (question.column.name, question.level.value if question.level is not None else None)
        if ident in found:
            found[ident].asked.append(question)
        else:
            found[ident] = SharedQuestion(asked=[question])
    return list(found.values())
