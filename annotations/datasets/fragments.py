"""What the project page shows, rendered for the page itself and pushed over its websocket."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from annotations.datasets.selectors import (
    STATUSES,
    LevelState,
    current_status,
    level_state,
    level_states,
    progress,
    status_counts,
)
from annotations.models import ColumnKind, DatasetLevel, DatasetProject

LEVEL_FILTERS = STATUSES


def ws_path(project: DatasetProject) -> str:
    return f"/ws/datasets/{project.pk}/"


def page_context(project: DatasetProject, *, status: str = "") -> dict[str, Any]:
    current_status(project)
    states = level_states(project)
    shown = [s for s in states if not status or s.status == status]
    tasks = []
    for task in project.tasks.prefetch_related("columns"):
        columns = list(task.columns.all())
        tasks.append({"task": task, "columns": columns,
                      "value_columns": [c for c in columns if c.kind == ColumnKind.VALUE],
                      "levels": [s for s in shown if s.level.column.task_id == task.pk]})
    return {"project": project, "tasks": tasks, **_counts(states), "status_filter": status,
            "ws_url": ws_path(project), "column_kinds": ColumnKind.choices}


def _counts(states: list[LevelState]) -> dict[str, Any]:
    counts = status_counts(states)
    return {"counts": counts, "count_items": [(name, counts[name]) for name in LEVEL_FILTERS],
            "progress": progress(states)}


def counts_fragment(project: DatasetProject) -> str:
    states = level_states(project)
    project.refresh_from_db(fields=["status", "error"])
    current_status(project)
    return render_to_string("annotations/datasets/partials/counts.html",
                            {"project": project, **_counts(states), "status_filter": "", "oob": True})


def level_fragment(level_id: Any, csrf_token: str = "") -> str:
    """A level's row; *csrf_token* (the page's cookie) keeps its forms usable after the swap."""
    level = DatasetLevel.objects.select_related("column__task__project").filter(pk=level_id).first()
    if level is None:
        return ""
    state: LevelState = level_state(level)
    return render_to_string("annotations/datasets/partials/level_row.html",
                            {"s": state, "project": level.column.task.project, "oob": True,
                             "csrf_token": csrf_token})
