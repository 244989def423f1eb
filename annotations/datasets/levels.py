"""A level's own page: its state, and the next level of the same task that still needs work.

"Needs work" is what the level page can fix or start: a description made up from the names, or no valid
annotation yet (pending or invalid). The walk stays inside the level's task, in the project page's
column/level order, so "Save & next" never leaves the task (let alone the dataset).
"""

from __future__ import annotations

from annotations.datasets.selectors import LevelState, level_states
from annotations.models import DatasetLevel

NEEDS_WORK = ("pending", "invalid", "needs_description")  # the last: an open question on its meaning


def needs_work(state: LevelState) -> bool:
    return state.level.needs_description or (state.status in NEEDS_WORK and not state.queued)


def task_states(level: DatasetLevel) -> list[LevelState]:
    """Every level of *level*'s task with its state, in column/level order (a fixed number of queries)."""
    return level_states(level.column.task.project, task=level.column.task.name)


def next_needing_work(level: DatasetLevel, states: list[LevelState] | None = None) -> LevelState | None:
    """The first level after *level* in its task (then from the task's start) that needs work; None when no
    other level of the task does."""
    states = task_states(level) if states is None else states
    at = next((i for i, s in enumerate(states) if s.level.pk == level.pk), -1)
    for state in [*states[at + 1:], *states[:max(at, 0)]]:
        if state.level.pk != level.pk and needs_work(state):
            return state
    return None
