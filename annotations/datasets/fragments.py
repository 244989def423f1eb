"""What the project page shows, rendered for the page itself and pushed over its websocket."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.template.loader import render_to_string

from annotations.datasets.job_progress import job_progress
from annotations.datasets.questions import OpenQuestion, project_questions, shared_questions
from annotations.datasets.results import settled_status, sidecar_heds
from annotations.datasets.selectors import (
    STATUS_LABELS,
    STATUSES,
    LevelState,
    level_state,
    level_states,
    progress,
    status_counts,
)
from annotations.models import ColumnKind, DatasetColumn, DatasetLevel, DatasetProject, DatasetTask

LEVEL_FILTERS = STATUSES
LEVELS_PER_TASK_PAGE = 50
"""Levels a task shows at once: the page renders every task's first page, a task's pager loads its next ones
(a project of 8 tasks and 1,000 levels was 42,405 px tall and took 5.7 s when it showed them all)."""


def ws_path(project: DatasetProject) -> str:
    return f"/ws/datasets/{project.pk}/"


def page_context(project: DatasetProject, *, status: str = "", paged_task: str = "", page: Any = 1,
                 can_edit: bool = False) -> dict[str, Any]:
    """The project page: counts over every level, and each task's first page of levels (page *page* of the
    task named *paged_task*: its pager's link without JavaScript).

    *can_edit* (``access.can_edit_project``) shows the edit forms; a reviewer who only sees the project gets none,
    since the server would refuse what they post.
    """
    states = level_states(project)
    project.status = settled_status(project, states)  # "done" only with every current sidecar stored
    shown_of: dict[int, list[LevelState]] = {}
    for state in states:
        if not status or state.status == status:
            shown_of.setdefault(state.level.column.task_id, []).append(state)
    columns_of: dict[int, list[DatasetColumn]] = {}
    all_columns = list(DatasetColumn.objects.filter(task__project=project).defer("template_issues"))
    for column in all_columns:
        columns_of.setdefault(column.task_id, []).append(column)
    task_rows = list(project.tasks.only("id", "project_id", "name", "sidecar_name", "events_files"))
    questions_of: dict[int, list[OpenQuestion]] = {}
    asked = project_questions(project, states=states, columns=all_columns, tasks=task_rows)
    for question in asked:
        questions_of.setdefault(question.task.pk, []).append(question)
    _with_sidecar_hed(project, [s for shown in shown_of.values() for s in shown])
    tasks = []
    for task in task_rows:
        columns = columns_of.get(task.pk, [])
        tasks.append({"task": task, "columns": columns,
                      "value_columns": [c for c in columns if c.kind == ColumnKind.VALUE],
                      **_task_page(shown_of.get(task.pk, []), page if task.name == paged_task else 1),
                      "open": len(task_rows) <= OPEN_TASKS or task.name == (paged_task or task_rows[0].name),
                      "questions": questions_of.get(task.pk, [])})
    return {"project": project, "tasks": tasks, **_counts(states), "job": job_progress(project),
            "status_filter": status, "questions": shared_questions(asked),
            "ws_url": ws_path(project), "column_kinds": ColumnKind.choices,
            "can_edit": can_edit}


OPEN_TASKS = 3
"""A project of up to this many tasks shows them all open; a longer one opens the first (or the one paged)
and folds the rest behind the jump list, which opens the task it leads to (js/datasets.js)."""


def _task_page(shown: list[LevelState], page: Any) -> dict[str, Any]:
    """A task's page of levels (*shown*: its levels the status filter keeps) and how many there are."""
    levels = Paginator(shown, LEVELS_PER_TASK_PAGE).get_page(page)
    return {"levels": levels.object_list, "levels_page": levels, "level_total": len(shown)}


def task_levels_context(project: DatasetProject, task: DatasetTask, *, status: str = "", page: Any = 1,
                        can_edit: bool = False) -> dict[str, Any]:
    """One page of *task*'s levels (its pager's htmx request): only that task's levels and runs are read."""
    shown = [s for s in level_states(project, task=task.name) if not status or s.status == status]
    _with_sidecar_hed(project, shown, [task.pk])
    return {"project": project, "t": {"task": task, **_task_page(shown, page)}, "status_filter": status,
            "can_edit": can_edit}


def _with_sidecar_hed(project: DatasetProject, states: list[LevelState], task_ids: list[int] | None = None) -> None:
    """Each state's :attr:`~.selectors.LevelState.sidecar_hed`: the project page's Annotation column shows what
    the sidecar puts on the level's rows (composed with its columns), not the level's own HED."""
    heds = sidecar_heds(project, task_ids)
    for state in states:
        state.sidecar_hed = heds.get((state.level.column.task_id, state.level.column.name, state.level.value))


def _counts(states: list[LevelState]) -> dict[str, Any]:
    counts = status_counts(states)
    return {"counts": counts, "count_items": [(name, STATUS_LABELS[name], counts[name]) for name in LEVEL_FILTERS],
            "progress": progress(states)}


def counts_fragment(project: DatasetProject) -> str:
    states = level_states(project)
    project.refresh_from_db(fields=["status", "error"])
    project.status = settled_status(project, states)
    return render_to_string("annotations/datasets/partials/counts.html",
                            {"project": project, **_counts(states), "job": job_progress(project),
                             "status_filter": "", "oob": True})


def level_fragment(level_id: Any, csrf_token: str = "", *, can_edit: bool = False) -> str:
    """A level's row; *csrf_token* (the page's cookie) keeps its forms usable after the swap, and *can_edit*
    decides whether it has forms at all (as on the page itself)."""
    level = DatasetLevel.objects.select_related("column__task__project").filter(pk=level_id).first()
    if level is None:
        return ""
    state: LevelState = level_state(level)
    _with_sidecar_hed(level.column.task.project, [state], [level.column.task_id])
    return render_to_string("annotations/datasets/partials/level_row.html",
                            {"s": state, "project": level.column.task.project, "oob": True,
                             "csrf_token": csrf_token, "can_edit": can_edit})
