"""A project's sidecars: the database mapped to what the pure pipeline reads, its result mapped back.

Composing, building, validating and keeping the floor are :func:`bidsdata.pipeline.sidecar_for_task`'s
work; this module feeds it what the database holds (the inventory with the user's edits, the levels'
annotations, the events files), keeps its steps' answers in the cache by digest, runs it in a worker of the
shared validation pool when asked (:func:`pipeline_in_pool`: the stored results' computations), and maps the
result back to the project's levels so pages can link each issue to the level that fixes it.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from django.core.cache import cache

from annotations.datasets.selectors import LevelState, level_states, project_files, validation_version
from annotations.models import ColumnKind, DatasetProject, DatasetTask
from bidsdata.archive import DatasetFiles
from bidsdata.assembly import DroppedTags
from bidsdata.composition import Composition
from bidsdata.context import TaskContext
from bidsdata.inventory import ColumnInventory, EventsFileNote, LevelInventory, TaskInventory
from bidsdata.issues import SidecarIssue
from bidsdata.patterns import column_values, marker_pattern
from bidsdata.pipeline import TaskResult, in_worker, inputs_digest, issues_digest, sidecar_for_task
from bidsdata.pool import drop_pool, shared_pool
from bidsdata.sidecar import MissingAnnotation, sidecar_to_spreadsheet

logger = logging.getLogger(__name__)

@dataclass
class TaskSidecar:
    """One task's sidecar with what it lacks and what hedtools says of it."""

    task: DatasetTask
    sidecar: dict[str, Any]
    missing: list[MissingAnnotation] = field(default_factory=list)
    issues: list[SidecarIssue] = field(default_factory=list)
    states: list[LevelState] = field(default_factory=list)
    dropped: list[DroppedTags] = field(default_factory=list)
    composition: Composition | None = None
    pending: bool = False
    """Not validated for the current annotations yet (see :mod:`.results`): what is shown is the last result
    validated, or nothing."""
    checked: dict[str, Any] = field(default_factory=dict)
    """hedtools' event checks of the rows, stored with the result (:func:`.results.stored_quality`)."""
    checked_for: str = ""
    """:func:`sidecar_key` of the sidecar :attr:`checked` was computed on (empty when not computed here)."""

    @property
    def errors(self) -> list[SidecarIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def is_valid(self) -> bool:
        """Every level annotated, and the sidecar and every events file validate with it."""
        return not self.pending and not self.missing and not self.errors

    def state_of(self, column: str | None, level: str | None) -> LevelState | None:
        return next((s for s in self.states if s.level.column.name == column and s.level.value == level), None)

    def issue_rows(self) -> list[dict[str, Any]]:
        """Issues and missing levels as rows for pages and the API, each with the level it belongs to."""
        rows: list[dict[str, Any]] = []
        if self.composition is not None and self.composition.fallback:
            rows.append({"code": "NOT_COMPOSED", "severity": "warning", "column": None, "level": None,
                         "source": "sidecar", "row": None, "state": None,
                         "message": "the levels' own HED is used as annotated where the composed HED failed "
                                    f"validation: composing them gave {self.composition.fallback}"})
        for note in self.task.notes or []:  # an events file read with a remark (no onsets, ...)
            rows.append({"code": note.get("code", "EVENTS_NOT_TIMED"), "severity": "warning", "column": None,
                         "level": None, "source": note.get("path"), "row": None,
                         "message": note.get("message", ""), "state": None})
        why = {(n.column, n.level): n.reason for n in self.dropped if not n.redundant and n.reason}
        for missing in self.missing:
            state = self.state_of(missing.column, missing.level)
            what = f"level {missing.level!r}" if missing.level is not None else "the value column's template"
            reason = why.get((missing.column, missing.level))  # left out of the sidecar: hedtools refused it
            rows.append({"code": "MISSING_HED", "severity": "error", "column": missing.column,
                         "level": missing.level, "source": "sidecar", "row": None,
                         "message": f"{what} of column {missing.column!r} has no valid HED yet"
                                    + (f": {reason}" if reason else ""),
                         "state": state})
        for note in self.dropped:
            if note.redundant:
                what = f"level {note.level!r}" if note.level is not None else "the template"
                rows.append({"code": "LEFT_OUT", "severity": "warning", "column": note.column,
                             "level": note.level, "source": "sidecar", "row": None,
                             "message": f"{what} of column {note.column!r} is left out of the sidecar's HED: "
                                        f"{note.reason}",
                             "state": self.state_of(note.column, note.level)})
        for issue in self.issues:
            targets = [(issue.column, issue.level)] if issue.column else list(issue.related)
            state = next((s for s in (self.state_of(c, lv) for c, lv in targets) if s is not None), None)
            rows.append({**issue.to_dict(), "state": state})
        return rows


def _long_name(entry: object) -> str | None:
    name = entry.get("LongName") if isinstance(entry, dict) else None
    return str(name) if isinstance(name, str) and name.strip() else None


def task_inventory(task: DatasetTask) -> TaskInventory:
    """The stored inventory of *task*, as the pure sidecar builder reads it (user edits included)."""
    columns = []
    for column in task.columns.prefetch_related("levels"):
        levels = [LevelInventory(value=lv.value, count=lv.count, description=lv.description,
                                 needs_description=lv.needs_description, existing_hed=lv.existing_hed or None)
                  for lv in column.levels.all()] if column.kind == ColumnKind.CATEGORICAL else []
        # What the lab wrote stays known to the composer, which never replaces it with silence.
        given = ({lv.value: lv.existing_hed for lv in levels if lv.existing_hed} or None if levels
                 else column.existing_template or None)
        columns.append(ColumnInventory(name=column.name, kind=column.kind, description=column.description,
                                       levels=levels, units=column.units or None, existing_hed=given,
                                       needs_description=column.needs_description,
                                       distinct_values=column.distinct_values,
                                       long_name=_long_name(task.original_sidecar.get(column.name))))
    return TaskInventory(task=task.name, sidecar_name=task.sidecar_name, events_files=list(task.events_files),
                         columns=columns, original_sidecar=dict(task.original_sidecar),
                         definition_keys=list(task.definition_keys), context=TaskContext.from_dict(task.context),
                         notes=[EventsFileNote(**note) for note in task.notes])


def _annotations(task: DatasetTask, states: list[LevelState]) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for column in task.columns.all():
        if column.kind == ColumnKind.VALUE and column.template:
            chosen[column.name] = column.template
    for state in states:
        if state.annotation and state.level.column.task_id == task.pk:
            chosen.setdefault(state.level.column.name, {})[state.level.value] = state.annotation
    return chosen


def task_events(project: DatasetProject, task: DatasetTask, files: DatasetFiles | None = None) -> dict[str, str]:
    """The task's events files (path -> TSV text) as the upload kept them."""
    files = project_files(project) if files is None else files
    return {path: files.texts[path] for path in task.events_files if path in files.texts}


T = TypeVar("T")


@dataclass(frozen=True)
class TaskCache:
    """The pipeline's step answers kept in Django's cache for a day, per project and task, by digest."""

    project: Any
    task: Any

    def remember(self, step: str, digest: str, compute: Callable[[], T]) -> T:
        key = f"hedit:sidecar-{step}:{self.project}:{self.task}:{digest}"
        found = cache.get(key)
        if found is None:
            found = compute()
            cache.set(key, found, timeout=24 * 3600)
        return found


def task_sidecar(project: DatasetProject, task: DatasetTask, *, validate: bool = True,
                 states: list[LevelState] | None = None, files: DatasetFiles | None = None,
                 quality_limits: Mapping[str, int] | None = None, in_pool: bool = False) -> TaskSidecar:
    """*task*'s sidecar from the levels' current annotations, validated with every events file, with the
    quality figures when *quality_limits* are given (:func:`bidsdata.pipeline.sidecar_for_task`); *in_pool*:
    computed in a worker of the shared validation pool (:func:`pipeline_in_pool`)."""
    states = level_states(project, task=task.name) if states is None else states
    mine = [s for s in states if s.level.column.task_id == task.pk]
    events, version = task_events(project, task, files), validation_version(project)
    forms = task.columns.filter(by_pattern=True, kind=ColumnKind.CATEGORICAL).values_list("name", flat=True)
    patterns = {name: column_values(events.values(), name) for name in forms}
    run = pipeline_in_pool if in_pool else sidecar_for_task
    done = run(task_inventory(task), _annotations(task, mine), events, version, memo=TaskCache(project.pk, task.pk),
               validate=validate, quality_limits=quality_limits, patterns=patterns)
    return _by_form(from_result(task, done, mine), set(patterns))


def _by_form(result: TaskSidecar, forms: set[str]) -> TaskSidecar:
    """What the sidecar lacks and what hedtools says, of a pattern column's strings, said of their form's level
    (the level a page links to): one missing form, not a line per string."""
    if not forms:
        return result

    def form(column: str | None, level: str | None) -> str | None:
        return marker_pattern(level) if column in forms and level is not None else level

    missing = list(dict.fromkeys(MissingAnnotation(m.column, form(m.column, m.level)) for m in result.missing))
    issues = [replace(i, level=form(i.column, i.level),
                      related=tuple((c, form(c, lv)) for c, lv in i.related)) for i in result.issues]
    dropped = [replace(d, level=form(d.column, d.level)) for d in result.dropped]
    return replace(result, missing=missing, issues=issues, dropped=dropped)


def pipeline_in_pool(*args: Any, memo: TaskCache, validate: bool, quality_limits: Mapping[str, int] | None,
                     patterns: Mapping[str, Mapping[str, int]] | None = None) -> TaskResult:
    """:func:`bidsdata.pipeline.sidecar_for_task` in one worker of this process's shared validation pool.

    Composing, validating and checking a task's rows hold a core (and, in this process, the GIL that every
    page of the server needs) for seconds to minutes; in a pool worker (bounded, niced) they leave the
    server's pages alone, and the worker validates the files itself. Its log records are logged here. The
    cache's step answers cannot cross processes: the worker computes without them and its answers are kept
    in the cache afterwards. A broken or unavailable pool: computed here, as before the pool existed.
    """
    def here(exc: BaseException, pool: concurrent.futures.ProcessPoolExecutor | None) -> TaskResult:
        if isinstance(exc, BrokenProcessPool) and pool is not None:
            drop_pool(pool)  # the next call starts a new one
        logger.warning("the validation pool could not compute the sidecar (%r); computing it here", exc)
        return sidecar_for_task(*args, memo=memo, validate=validate, quality_limits=quality_limits,
                                patterns=patterns)

    level, pool = logging.getLogger("bidsdata").getEffectiveLevel(), None
    try:
        pool, _ = shared_pool()
        future = pool.submit(in_worker, level, *args, validate=validate, quality_limits=quality_limits,
                             patterns=patterns)
    except (OSError, RuntimeError) as exc:  # broken (RuntimeError's kind), shut down meanwhile, or no processes
        return here(exc, pool)
    try:
        done, records = future.result()
    except (BrokenProcessPool, concurrent.futures.CancelledError) as exc:  # a worker killed, the pool replaced
        return here(exc, pool)
    for record in records:
        named = logging.getLogger(record.name)
        if named.isEnabledFor(record.levelno):
            named.handle(record)
    inventory, annotations, _, hed_version = args
    memo.remember("composed", inputs_digest(inventory, annotations, hed_version), lambda: done.composition)
    if validate:
        memo.remember("issues", issues_digest(done.sidecar, hed_version), lambda: done.issues)
    return done


def sidecar_key(sidecar: dict[str, Any]) -> str:
    """A sidecar's content as a digest: tells whether quality figures were computed on this very sidecar."""
    return hashlib.sha256(json.dumps(sidecar, sort_keys=True).encode("utf-8")).hexdigest()


def from_result(task: DatasetTask, done: TaskResult, states: list[LevelState]) -> TaskSidecar:
    """The pipeline's result as the pages read it, with the task's levels' states."""
    return TaskSidecar(task=task, sidecar=done.sidecar, missing=done.missing, issues=done.issues, states=states,
                       dropped=done.dropped, composition=done.composition, checked=done.checked,
                       checked_for=sidecar_key(done.sidecar) if done.checked else "")


def task_digest(project: DatasetProject, task: DatasetTask, states: list[LevelState]) -> str:
    """The digest of what *task*'s sidecar is made from (:func:`bidsdata.pipeline.inputs_digest`)."""
    mine = [s for s in states if s.level.column.task_id == task.pk]
    return inputs_digest(task_inventory(task), _annotations(task, mine), validation_version(project))


def project_sidecars(project: DatasetProject, *, validate: bool = True) -> list[TaskSidecar]:
    states, files = level_states(project), project_files(project)
    return [task_sidecar(project, task, validate=validate, states=states, files=files)
            for task in project.tasks.all()]


def spreadsheet(result: TaskSidecar) -> str:
    """hedtools' 4-column spreadsheet form of the sidecar (column_name, column_value, description, HED)."""
    return sidecar_to_spreadsheet(result.sidecar)  # every cell inert for spreadsheets (bidsdata.cells)
