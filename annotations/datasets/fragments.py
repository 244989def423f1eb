"""What the project page shows, rendered for the page itself and pushed over its websocket."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.paginator import Paginator
from django.template.loader import render_to_string

from annotations.datasets.questions import OpenQuestion, project_questions
from annotations.datasets.selectors import (
    STATUS_LABELS,
    STATUSES,
    LevelState,
    current_status,
    level_state,
    level_states,
    progress,
    status_counts,
)
from annotations.models import ColumnKind, DatasetColumn, DatasetLevel, DatasetProject

LEVEL_FILTERS = STATUSES
LEVELS_PER_PAGE = 200


def ws_path(project: DatasetProject) -> str:
    return f"/ws/datasets/{project.pk}/"


def page_context(project: DatasetProject, *, status: str = "", page: Any = 1, can_edit: bool = False) -> dict[str, Any]:
    """The project page: counts over every level, and one page of levels (a project may have thousands).

    *can_edit* (``access.can_edit_project``) shows the edit forms; a reviewer who only sees the project gets none,
    since the server would refuse what they post.
    """
    current_status(project)
    states = level_states(project)
    shown = [s for s in states if not status or s.status == status]
    levels = Paginator(shown, LEVELS_PER_PAGE).get_page(page)
    on_page: dict[int, list[LevelState]] = {}
    for state in levels.object_list:
        on_page.setdefault(state.level.column.task_id, []).append(state)
    in_task = Counter(s.level.column.task_id for s in shown)
    columns_of: dict[int, list[DatasetColumn]] = {}
    all_columns = list(DatasetColumn.objects.filter(task__project=project).defer("template_issues"))
    for column in all_columns:
        columns_of.setdefault(column.task_id, []).append(column)
    task_rows = list(project.tasks.only("id", "project_id", "name", "sidecar_name", "events_files"))
    questions_of: dict[int, list[OpenQuestion]] = {}
    for question in project_questions(project, states=states, columns=all_columns, tasks=task_rows):
        questions_of.setdefault(question.task.pk, []).append(question)
    tasks = []
    for task in task_rows:
        columns = columns_of.get(task.pk, [])
        tasks.append({"task": task, "columns": columns,
                      "value_columns": [c for c in columns if c.kind == ColumnKind.VALUE],
                      "levels": on_page.get(task.pk, []), "level_total": in_task.get(task.pk, 0),
                      "questions": questions_of.get(task.pk, [])})
    return {"project": project, "tasks": tasks, **_counts(states), "status_filter": status,
            "levels_page": levels, "ws_url": ws_path(project), "column_kinds": ColumnKind.choices,
            "can_edit": can_edit}


def _counts(states: list[LevelState]) -> dict[str, Any]:
    counts = status_counts(states)
    return {"counts": counts, "count_items": [(name, STATUS_LABELS[name], counts[name]) for name in LEVEL_FILTERS],
            "progress": progress(states)}


def counts_fragment(project: DatasetProject) -> str:
    states = level_states(project)
    project.refresh_from_db(fields=["status", "error"])
    current_status(project)
    return render_to_string("annotations/datasets/partials/counts.html",
                            {"project": project, **_counts(states), "status_filter": "", "oob": True})


def level_fragment(level_id: Any, csrf_token: str = "", *, can_edit: bool = False) -> str:
    """A level's row; *csrf_token* (the page's cookie) keeps its forms usable after the swap, and *can_edit*
    decides whether it has forms at all (as on the page itself)."""
    level = DatasetLevel.objects.select_related("column__task__project").filter(pk=level_id).first()
    if level is None:
        return ""
    state: LevelState = level_state(level)
    return render_to_string("annotations/datasets/partials/level_row.html",
                            {"s": state, "project": level.column.task.project, "oob": True,
                             "csrf_token": csrf_token, "can_edit": can_edit})
