"""One task's events under one sidecar revision: what the commands, the pages and the API ask their questions of.

:class:`TaskEvents` holds the task's sources (each events file with the sidecar it reads, complete or by
reference) and a way to complete them; every question goes to the search process that owns the revision
(:mod:`.workers`), which keeps its assembled HED. Counts and pages come back whole (they are small); the
rows of a download come one file at a time (:meth:`TaskEvents.rows`), so no one holds a task's every row.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agents.schema import HedVersion
from bidsdata.usage import compare, design, search, summary
from bidsdata.usage.assembly import DEFAULTS, Options
from bidsdata.usage.sources import EventsSource, digest
from bidsdata.usage.workers import ask, call


def _rows_of(sources: Sequence[EventsSource], queries: Sequence[str], version: HedVersion | None, options: Options,
             with_hed: bool) -> list[search.Row]:
    return search.file_rows(sources[0], queries, version, options, with_hed=with_hed)


def _summary_of(sources: Sequence[EventsSource], task: str, version: HedVersion | None) -> dict[str, Any]:
    return summary.tag_summary(task, sources, version)


def _design_of(sources: Sequence[EventsSource], version: HedVersion | None, type_tag: str,
               encoding: str) -> design.DesignFile:
    return design.design_file(sources[0], version, type_tag=type_tag, encoding=encoding)


def _held(sources: Sequence[EventsSource]) -> Callable[[Iterable[str]], Mapping[str, EventsSource]]:
    by_key = {s.key: s for s in sources}
    return lambda keys: {k: by_key[k] for k in keys if k in by_key}


@dataclass
class TaskEvents:
    """A task's events files read with one sidecar revision.

    *complete* gives the complete sources of some keys (their texts read from wherever they are kept); it
    may be left out when *sources* are complete already (a folder read by the command line).
    """

    task: str
    version: HedVersion | None
    sources: list[EventsSource]
    complete: Callable[[Iterable[str]], Mapping[str, EventsSource]] | None = None
    revision: str = field(default="")

    def __post_init__(self) -> None:
        if not self.revision:
            self.revision = digest("task-events", self.task, [s.key for s in self.sources])
        if self.complete is None:
            self.complete = _held(self.sources)

    @property
    def files(self) -> int:
        return len(self.sources)

    def _ask(self, fn: Callable[..., Any], sources: Sequence[EventsSource], *args: Any, **kwargs: Any) -> Any:
        assert self.complete is not None
        return ask(self.revision, fn, sources, self.complete, *args, **kwargs)

    def counts(self, queries: Sequence[str], options: Options = DEFAULTS) -> search.TaskCounts:
        """Each query's matches per events file (hedtools' own answers; refused files named)."""
        return self._ask(search.count, self.sources, list(queries), self.version, options)

    def page(self, queries: Sequence[str], options: Options, counts: search.TaskCounts, *, offset: int,
             limit: int) -> list[search.Row]:
        """The matching rows *offset* to *offset + limit*, with their assembled HED."""
        wanted = {c.path for c in counts.files if c.any_matches}
        sources = [s for s in self.sources if s.path in wanted]
        return self._ask(search.page, sources, list(queries), self.version, options, counts, offset=offset,
                         limit=limit)

    def rows(self, queries: Sequence[str], options: Options = DEFAULTS, *, with_hed: bool = False,
             counts: search.TaskCounts | None = None) -> Iterator[search.Row]:
        """Every matching row, asked for one file at a time (files *counts* says have none are skipped)."""
        skip = {c.path for c in counts.files if not c.any_matches} if counts is not None else set()
        for source in self.sources:
            if source.path not in skip:
                yield from self._ask(_rows_of, [source], list(queries), self.version, options, with_hed)

    def row_answers(self, queries: Sequence[str], options: Options = DEFAULTS) -> list[list[bytes] | None]:
        """Per events file, per query, a 0/1 per row (:func:`bidsdata.usage.compare.row_answers`)."""
        return self._ask(compare.row_answers, self.sources, list(queries), self.version, options)

    def row_heds(self, wanted: Mapping[str, Sequence[int]], options: Options = DEFAULTS) -> dict[str, dict[int,
                                                                                                          list[str]]]:
        """The assembled HED of the *wanted* rows (path -> rows), per path and row."""
        sources = [s for s in self.sources if s.path in wanted]
        found = self._ask(compare.row_heds, sources, [list(wanted[s.path]) for s in sources], self.version, options)
        return {s.path: heds for s, heds in zip(sources, found, strict=True)}

    def summary(self) -> dict[str, Any]:
        """hedtools' tag counts of the task, grouped (:func:`bidsdata.usage.summary.tag_summary`)."""
        return self._ask(_summary_of, self.sources, self.task, self.version)

    def designs(self, type_tag: str = "Condition-variable", encoding: str = "one-hot") -> Iterator[design.DesignFile]:
        """Each events file's design matrix, one file at a time (hedtools reads each file afresh)."""
        assert self.complete is not None
        for source in self.sources:
            full = source if source.complete else replace(self.complete([source.key])[source.key], path=source.path)
            yield call(self.revision, _design_of, [full], self.version, type_tag, encoding)

    def design_summary(self, files: Iterable[design.DesignFile], type_tag: str,
                       sidecar: dict[str, Any] | None = None) -> dict[str, Any]:
        """The type summary of *files* (their ``HedTypeCounts``), with *sidecar*'s (or the first file's)
        definitions' descriptions."""
        if sidecar is None and self.sources:
            first = self.sources[0]
            full = first if first.complete else (self.complete or _held([]))([first.key]).get(first.key, first)
            sidecar = dict(full.sidecar or {})
        return design.design_summary(self.task, files, type_tag, sidecar, self.version)


__all__ = ["TaskEvents"]
