"""One task's sidecar, from its inventory and the levels' annotations to hedtools' verdict: the one entry point.

:func:`sidecar_for_task` reads top to bottom as its steps, each a function of this module:

1. :func:`composed` -- the levels' annotations composed as a curator writes a sidecar
   (:func:`bidsdata.composition.valid.first_composition`), and the floor kept: where hedtools finds errors,
   the blamed columns go back to the levels' own HED and what still fails is left out and noted
   (:func:`bidsdata.composition.valid.keep_the_floor`); each candidate is built and validated on the way;
2. :func:`built` -- the ``events.json`` dict with that HED and the composition's definitions entry;
3. :func:`validated` -- hedtools' issues for the sidecar and every events file;
4. :func:`quality_figures` -- hedtools' event checks of the rows (the figures and the first rows' preview).

Pure: plain arguments in, a plain :class:`TaskResult` out (no Django), so a process pool can run it
(:func:`in_worker`: the web app runs it in a worker of the shared validation pool, off its own GIL). The
caller may pass a :class:`StepMemo` to keep a step's answer by the digest of what it is made from (the same
digest, the same answer); the web app keeps them in its cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, TypeVar

from agents.schema import HedVersion
from bidsdata import quality as hed_quality
from bidsdata.assembly import DroppedTags
from bidsdata.composition.compose import Composition
from bidsdata.composition.valid import first_composition, keep_the_floor
from bidsdata.inventory import TaskInventory
from bidsdata.issues import SidecarIssue
from bidsdata.sidecar import MissingAnnotation, SidecarBuild, build_sidecar, validate_sidecar
from bidsdata.types import LevelAnnotations

logger = logging.getLogger(__name__)

T = TypeVar("T")


class StepMemo(Protocol):
    """Keeps a step's answer by the digest of its inputs: ``remember`` answers a kept one, else computes it."""

    def remember(self, step: str, digest: str, compute: Callable[[], T]) -> T: ...


@dataclass
class _Here:
    """Answers kept for one call, in front of the caller's memo (the last candidate's issues are the final
    sidecar's: validated once)."""

    outer: StepMemo | None
    kept: dict[tuple[str, str], Any] = field(default_factory=dict)

    def remember(self, step: str, digest: str, compute: Callable[[], T]) -> T:
        if (step, digest) not in self.kept:
            self.kept[(step, digest)] = compute() if self.outer is None else self.outer.remember(step, digest,
                                                                                                 compute)
        return self.kept[(step, digest)]


@dataclass
class TaskResult:
    """One task's sidecar, what it lacks, what was left out, how it was composed and hedtools' verdict."""

    sidecar: dict[str, Any]
    missing: list[MissingAnnotation] = field(default_factory=list)
    dropped: list[DroppedTags] = field(default_factory=list)
    composition: Composition | None = None
    issues: list[SidecarIssue] = field(default_factory=list)
    checked: dict[str, Any] = field(default_factory=dict)
    """The quality figures and the rows' preview (:func:`quality_figures`); empty when not asked for."""


def inputs_digest(inventory: TaskInventory, annotations: LevelAnnotations, hed_version: Any) -> str:
    """What a task's sidecar is made from (the levels' annotations, the inventory with the user's edits, the
    schema), as one digest: the same digest, the same sidecar and the same issues."""
    return hashlib.sha256(json.dumps([annotations, asdict(inventory), hed_version], sort_keys=True, default=str)
                          .encode()).hexdigest()


def issues_digest(sidecar: dict[str, Any], hed_version: HedVersion | None) -> str:
    """What a sidecar's issues depend on besides the events files (which never change after the upload)."""
    return hashlib.sha256(json.dumps([sidecar, hed_version], sort_keys=True).encode()).hexdigest()


def sidecar_for_task(inventory: TaskInventory, annotations: LevelAnnotations, events: Mapping[str, str],
                     hed_version: HedVersion | None, *, validate: bool = True,
                     quality_limits: Mapping[str, int] | None = None, memo: StepMemo | None = None,
                     patterns: Mapping[str, Mapping[str, int]] | None = None) -> TaskResult:
    """*inventory*'s sidecar from the levels' *annotations*, validated with every events file (path -> TSV
    text) unless *validate* is False, with the quality figures when *quality_limits* are given
    (``max_files``/``max_rows``).

    Tags a level repeats from another column of the same rows are left out of the sidecar (listed in
    ``dropped``), so assembled events stay valid; the levels' own annotations are not changed. A column in
    *patterns* (column -> its marker strings and their rows) has forms for levels (:mod:`bidsdata.patterns`): it
    is composed by form (a handful of levels, not thousands), then each string gets its form's composed HED.
    """
    memo = _Here(memo)
    composition = composed(inventory, annotations, events, hed_version, memo)
    if patterns:
        inventory, composition = by_string(inventory, composition, patterns, hed_version)
    sidecar = built(inventory, composition)
    result = TaskResult(sidecar=sidecar.sidecar, missing=missing(sidecar, composition.notes),
                        dropped=composition.notes, composition=composition)
    if validate:
        result.issues = list(validated(sidecar.sidecar, events, hed_version, inventory.sidecar_name, memo))
    if quality_limits is not None:
        result.checked = quality_figures(sidecar.sidecar, events, hed_version, quality_limits)
    return result


def composed(inventory: TaskInventory, annotations: LevelAnnotations, events: Mapping[str, str],
             hed_version: HedVersion | None, memo: StepMemo) -> Composition:
    """The task's composed sidecar HED with the floor kept, remembered by its inputs' digest.

    Composing reads every events row and annotates the words that tell colliding levels apart; the same
    levels' annotations and inventory give the same composition, so it is computed once. Valid is the
    floor: where hedtools finds errors (a dataset shaped as we did not foresee) the blamed columns go back
    to the levels' own HED, and a level or template that still fails is left out and reported.
    """
    def errors(candidate: Composition) -> list[SidecarIssue]:
        found = validated(built(inventory, candidate).sidecar, events, hed_version, inventory.sidecar_name, memo)
        return [i for i in found if i.severity == "error"]

    def compose() -> Composition:
        composition, plain = first_composition(inventory, annotations, events, hed_version)
        return keep_the_floor(inventory, composition, plain, events, errors)

    return memo.remember("composed", inputs_digest(inventory, annotations, hed_version), compose)


def by_string(inventory: TaskInventory, composition: Composition, patterns: Mapping[str, Mapping[str, int]],
              hed_version: HedVersion | None) -> tuple[TaskInventory, Composition]:
    """The pattern columns' forms (levels and composed HED) as one level per marker string
    (:func:`bidsdata.patterns.expand_patterns`); the remembered composition itself is left as it was."""
    from bidsdata.patterns import expand_patterns

    columns, annotations = [], dict(composition.annotations)
    for column in inventory.columns:
        if column.name in patterns and column.kind == "categorical":
            given = annotations.pop(column.name, None)
            column, hed = expand_patterns(column, given if isinstance(given, Mapping) else {},
                                          patterns[column.name], hed_version)
            if hed:
                annotations[column.name] = hed
        columns.append(column)
    return replace(inventory, columns=columns), replace(composition, annotations=annotations)


def built(inventory: TaskInventory, composition: Composition) -> SidecarBuild:
    """The ``events.json`` dict with *composition*'s HED (never the uploaded HED) and its definitions entry."""
    sidecar = build_sidecar(inventory, composition.annotations, keep_existing_hed=False)
    composition.apply(sidecar.sidecar)
    return sidecar


def missing(sidecar: SidecarBuild, dropped: list[DroppedTags]) -> list[MissingAnnotation]:
    """The levels and templates without HED, but those left out only for repeating their row (not missing:
    there is nothing of their own to say)."""
    redundant = {(d.column, d.level) for d in dropped if d.redundant}
    return [m for m in sidecar.missing if (m.column, m.level) not in redundant]


def validated(sidecar: dict[str, Any], events: Mapping[str, str], hed_version: HedVersion | None, name: str,
              memo: StepMemo) -> list[SidecarIssue]:
    """hedtools' issues for *sidecar* with the task's events files, remembered by the sidecar's content.

    Validating thousands of rows takes seconds; the events files never change after the upload, so the
    same sidecar (nothing re-annotated since) gets the same answer.
    """
    return memo.remember("issues", issues_digest(sidecar, hed_version),
                         lambda: validate_sidecar(sidecar, events, hed_version, name=name))


def quality_figures(sidecar: dict[str, Any], events: Mapping[str, str], hed_version: HedVersion | None,
                    limits: Mapping[str, int]) -> dict[str, Any]:
    """hedtools' event checks over the task's rows (the quality line, within *limits*) and its first rows (the
    preview), as plain data to store."""
    figures = hed_quality.quality(sidecar, events, hed_version, **limits)
    preview = hed_quality.row_preview(sidecar, events, hed_version, limit=hed_quality.PREVIEW_ROWS)
    return {"figures": asdict(figures), "preview": [asdict(row) for row in preview]}


class _Kept(logging.Handler):
    """A worker's log records, made plain to travel back to the caller (message formatted, no live objects)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg, record.args = record.getMessage(), None
        if record.exc_info:
            record.exc_text, record.exc_info = logging.Formatter().formatException(record.exc_info), None
        self.records.append(record)


def in_worker(level: int, *args: Any, **kwargs: Any) -> tuple[TaskResult, list[logging.LogRecord]]:
    """:func:`sidecar_for_task` in a process pool's worker, with this package's log records at the caller's
    *level* kept and handed back (a worker has none of the server's log handlers, or a forked copy of them
    writing beside the server's): the caller logs them as its own, each with the worker's process id."""
    package = logging.getLogger("bidsdata")
    kept, saved = _Kept(), (package.level, package.propagate)
    package.setLevel(level)
    package.propagate = False
    package.addHandler(kept)
    try:
        return sidecar_for_task(*args, **kwargs), kept.records
    finally:
        package.removeHandler(kept)
        package.setLevel(saved[0])
        package.propagate = saved[1]


__all__ = ["StepMemo", "TaskResult", "by_string", "in_worker", "inputs_digest", "issues_digest", "quality_figures",
           "sidecar_for_task"]
