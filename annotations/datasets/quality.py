"""A task's quality line and row preview, as the project page, the sidecar page and the API show them.

The figures and verdicts are :mod:`bidsdata.quality`'s (hedtools), computed with the task's sidecar in
the background and stored with it (:mod:`.results`); this module reads them and maps each failing row's
(column, level) pairs back to the level and column rows a page links to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotations.datasets.questions import open_question_count
from annotations.datasets.results import current_sidecar, stored_quality
from annotations.datasets.selectors import LevelState, TaskVerdict, level_states, status_counts, task_verdict
from annotations.datasets.sidecars import TaskSidecar
from annotations.models import ColumnKind, DatasetColumn, DatasetProject, DatasetTask
from bidsdata.patterns import marker_pattern
from bidsdata.quality import PreviewRow, Quality


@dataclass
class Source:
    """A (column, level) pair that gives a failing row HED, with the level's (or value column's) id to link to."""

    column: str
    level: str | None
    level_id: int | None = None
    column_id: int | None = None

    @property
    def label(self) -> str:
        return f"{self.column} = {self.level}" if self.level is not None else self.column


@dataclass
class PreviewLine:
    row: PreviewRow
    sources: list[Source] = field(default_factory=list)
    first_of_file: bool = False

    @property
    def file_label(self) -> str:
        """The file's name without its folders and suffix: ``sub-01_task-x_run-1``."""
        return self.row.file.rsplit("/", 1)[-1].removesuffix(".tsv").removesuffix("_events")

    @property
    def shown_values(self) -> list[tuple[str, str]]:
        """The row's cells worth showing beside its HED: not n/a, not the onset (it has a cell of its own)."""
        return [(c, v) for c, v in self.row.values if c != "onset" and v not in ("", "n/a")]


@dataclass
class TaskQuality:
    """What the page shows beside a task's validity."""

    task: DatasetTask
    result: TaskSidecar
    quality: Quality | None
    preview: list[PreviewLine]
    open_questions: int

    @property
    def preview_files(self) -> list[str]:
        return list(dict.fromkeys(line.row.file for line in self.preview))

    @property
    def pending(self) -> bool:
        return self.result.pending

    @property
    def undescribed(self) -> set[tuple[str, str]]:
        """(column, level) of the task's levels that need a description: a question is open about them, or their
        HED carries only generic tags or names (:func:`bidsdata.quality.vague_levels`)."""
        mine = {(s.level.column.name, s.level.value) for s in self.result.states}
        asked = {(s.level.column.name, s.level.value) for s in self.result.states if s.open_question}
        vague = {(str(c), str(lv)) for c, lv in (self.quality.vague if self.quality else [])}
        vague |= {(c, marker_pattern(lv)) for c, lv in vague}  # a pattern column's strings: their form's level
        return asked | (vague & mine)

    @property
    def verdict(self) -> TaskVerdict:
        """Validity beside the rows with HED, the rows passing and the levels that need a description: a valid
        sidecar whose rows have no HED, or most of whose rows fail, is not done."""
        q = self.quality
        result = self.result
        return task_verdict(valid=not result.errors,
                            pending=self.pending, rows=q.rows if q else 0, rows_ok=q.rows_ok if q else 0,
                            rows_hed=q.rows_hed if q else None,
                            unanswered=len(result.missing),
                            unanswered_columns=sum(1 for m in result.missing if m.level is None),
                            levels=len(result.states), undescribed=len(self.undescribed))

    @property
    def counts(self) -> dict[str, int]:
        """The task's levels at each status: the project's filters' counts, for this task."""
        return status_counts(self.result.states)

    def to_dict(self) -> dict[str, Any]:
        return {**(self.quality.to_dict() if self.quality is not None else {}), "open_questions": self.open_questions,
                "valid": self.result.is_valid, "validating": self.pending, "verdict": self.verdict.to_dict(),
                "states": {k: v for k, v in self.counts.items() if k != "total"}}


def _lines(task: DatasetTask, states: list[LevelState], preview: list[PreviewRow]) -> list[PreviewLine]:
    """The preview's rows, each failing one with the ids of the levels and columns that give it HED."""
    lines = [PreviewLine(row, first_of_file=i == 0 or preview[i - 1].file != row.file)
             for i, row in enumerate(preview)]
    if any(row.sources for row in preview):
        levels = {(s.level.column.name, s.level.value): s.level.pk for s in states}
        columns = dict(DatasetColumn.objects.filter(task=task).exclude(kind=ColumnKind.SKIP)
                       .values_list("name", "pk"))
        for line in lines:
            line.sources = [Source(c, lv, levels.get((c, lv)) or levels.get((c, marker_pattern(lv or ""))),
                                   columns.get(c)) for c, lv in line.row.sources]
    return lines


def task_quality(project: DatasetProject, task: DatasetTask, *, states: list[LevelState] | None = None
                 ) -> TaskQuality:
    """The task's stored sidecar, its figures, its first assembled rows, and its open questions.

    Read from the stored result (:mod:`.results`), never computed here: while the current annotations are
    being validated, ``pending`` says so and the figures are the last ones stored (or none yet)."""
    states = level_states(project, task=task.name) if states is None else states
    result = current_sidecar(project, task, states=states)
    found = stored_quality(result)
    figures, preview = found if found is not None else (None, [])
    lines = _lines(task, result.states, preview)
    return TaskQuality(task=task, result=result, quality=figures, preview=lines,
                       open_questions=open_question_count(project, task, result.states))
