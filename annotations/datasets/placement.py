"""The levels a single run may be placed in, for the run page's "add to dataset level" dropdown.

Only the user's own projects (a reviewer's view of everyone's projects would make a dropdown of every level
of every dataset), newest project first, grouped by project, task and column, and at most
:data:`MAX_LEVEL_CHOICES` levels in one query whatever the number of projects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotations.access import signed_in
from annotations.models import ColumnKind, DatasetLevel

MAX_LEVEL_CHOICES = 300
"""Levels offered at most; a project past them is placed in from its own page or the API."""

Choices = list[tuple[str, list[tuple[int, str]]]]


@dataclass
class LevelChoices:
    """Grouped choices (``project / task / column`` -> [(level id, value)]) and whether some were left out."""

    groups: Choices = field(default_factory=list)
    truncated: bool = False

    @property
    def ids(self) -> set[int]:
        return {pk for _, options in self.groups for pk, _ in options}


def level_choices_for(user: Any, limit: int = MAX_LEVEL_CHOICES) -> LevelChoices:
    """The categorical levels of *user*'s own projects, grouped for a ``<select>`` with ``<optgroup>``s."""
    if not signed_in(user):
        return LevelChoices()
    rows = list(DatasetLevel.objects.filter(column__task__project__user=user, column__kind=ColumnKind.CATEGORICAL)
                .order_by("-column__task__project__created_at", "column__task__project_id", "column__task__name",
                          "column__position", "value")
                .values_list("pk", "column__task__project__name", "column__task__name", "column__name",
                             "value")[:limit + 1])
    found = LevelChoices(truncated=len(rows) > limit)
    groups: dict[tuple[Any, ...], list[tuple[int, str]]] = {}
    for pk, project, task, column, value in rows[:limit]:
        groups.setdefault((project, task, column), []).append((pk, value))
    found.groups = [(f"{project} / {task} / {column}", options) for (project, task, column), options in groups.items()]
    return found
