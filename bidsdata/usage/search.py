"""Queries over a task's assembled events: counts per file, pages of matching rows, every row as a stream.

The work of a search happens where the assembled HED is kept (:class:`Store`, one per process, bounded by
events): each events file is assembled once per key and options (:func:`bidsdata.usage.assembly.assemble`),
each query's answer over it once (a vector of 0/1 per event), and every later query, page or download reads
them. A task larger than the store streams: files are assembled, searched and let go one after another,
and nothing holds every row of the task (a page reads the files up to its last row; a download, one file
at a time).

The answers equal hedtools' own loop (``EventManager`` → ``HedTagManager.get_hed_objs`` →
``QueryHandler.search``, an event without HED matching nothing, as ``search_hed_objs`` has it).

Pure: no Django.
"""

from __future__ import annotations

import logging
import threading
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.schema import HedVersion
from bidsdata.usage.assembly import DEFAULTS, Assembled, Options, assemble
from bidsdata.usage.queries import compile_queries
from bidsdata.usage.sources import EventsSource, NeedTexts

logger = logging.getLogger(__name__)

STORE_EVENTS = 100_000
"""Events whose assembled HED one process keeps (about 3.5 KB each: 350 MB); past it the least recently used go."""
STORE_ANSWERS = 20_000
"""(file, query) answers one process keeps (a byte per event each)."""


class Store:
    """This process's assembled files and query answers, least recently used first out, bounded by events."""

    def __init__(self, max_events: int = STORE_EVENTS, max_answers: int = STORE_ANSWERS) -> None:
        self.max_events, self.max_answers = max_events, max_answers
        self._files: OrderedDict[tuple[Any, ...], Assembled] = OrderedDict()
        self._answers: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._refused: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._rows: OrderedDict[tuple[Any, ...], array] = OrderedDict()
        self._events = 0
        self._lock = threading.Lock()
        self.assembled = 0
        """How many files this store assembled (a test and the benchmark read it: a hit assembles none)."""

    def held(self, key: str, options: Options) -> Assembled | None:
        with self._lock:
            found = self._files.get((key, options.key()))
            if found is not None:
                self._files.move_to_end((key, options.key()))
            elif (key, options.key()) in self._refused:
                return Assembled(path="", refused=self._refused[(key, options.key())])
            return found

    def refused(self, source: EventsSource, options: Options) -> str | None:
        """Why hedtools refused *source*, when this store knows it did."""
        with self._lock:
            return self._refused.get((source.key, options.key()))

    def needs_text(self, source: EventsSource, options: Options, queries: Sequence[str]) -> bool:
        """Whether answering *queries* over *source* needs its text (nothing of it kept here, and none sent)."""
        if source.complete or self.held(source.key, options) is not None:
            return False
        with self._lock:
            return (source.key, options.key()) not in self._rows or \
                not all((source.key, options.key(), q) in self._answers for q in queries)

    def rows_of(self, source: EventsSource, version: HedVersion | None, options: Options) -> array:
        """Each event's row in its file (kept longer than the events themselves: four bytes an event)."""
        with self._lock:
            found = self._rows.get((source.key, options.key()))
            if found is not None:
                self._rows.move_to_end((source.key, options.key()))
                return found
        return array("i", self.assembled_file(source, version, options).rows)

    def assembled_file(self, source: EventsSource, version: HedVersion | None, options: Options) -> Assembled:
        """*source*'s events assembled with *options*: kept, or assembled now (:class:`NeedTexts` without text)."""
        found = self.held(source.key, options)
        if found is not None:
            return found
        if not source.complete:
            raise NeedTexts([source.key])
        found = assemble(source.path, source.text or "", source.sidecar or {}, version, options)
        with self._lock:
            self.assembled += 1
            if found.refused:  # kept apart (no events): a refusal is not forgotten with the events
                self._refused[(source.key, options.key())] = found.refused
                while len(self._refused) > self.max_answers:
                    self._refused.popitem(last=False)
                return found
            self._files[(source.key, options.key())] = found
            self._rows[(source.key, options.key())] = array("i", found.rows)
            while len(self._rows) > self.max_answers:
                self._rows.popitem(last=False)
            self._events += len(found)
            while self._events > self.max_events and len(self._files) > 1:
                _, dropped = self._files.popitem(last=False)
                self._events -= len(dropped)
        return found

    def answer(self, source: EventsSource, version: HedVersion | None, options: Options, query: str,
               handler: Any) -> bytes:
        """Per event of *source*, 1 where *query* matches (hedtools' ``search``), kept for later askers."""
        key = (source.key, options.key(), query)
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
                return found
        events = self.assembled_file(source, version, options)
        found = bytes(1 if obj and handler.search(obj) else 0 for obj in events.objects)
        with self._lock:
            self._answers[key] = found
            while len(self._answers) > self.max_answers:
                self._answers.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._files.clear()
            self._answers.clear()
            self._refused.clear()
            self._rows.clear()
            self._events = 0
            self.assembled = 0


_store = Store()


def store() -> Store:
    """This process's one store (each search process has its own)."""
    return _store


@dataclass
class FileCounts:
    """One events file's answer: its events, the matches of each query, or why hedtools refused it."""

    path: str
    events: int = 0
    matches: list[int] = field(default_factory=list)
    any_matches: int = 0
    refused: str | None = None
    rows: int = 0
    """The file's rows (an event is a row, or a row's ``Delay`` group)."""
    matched_rows: list[int] = field(default_factory=list)
    """Per query, the file's rows with a matching event."""


@dataclass
class TaskCounts:
    """A task's answer to a set of queries: per file and in total."""

    queries: list[str]
    files: list[FileCounts] = field(default_factory=list)

    @property
    def events(self) -> int:
        return sum(f.events for f in self.files)

    @property
    def rows(self) -> int:
        return sum(f.rows for f in self.files)

    @property
    def matches(self) -> list[int]:
        return [sum(f.matches[i] for f in self.files if f.matches) for i in range(len(self.queries))]

    @property
    def matched_rows(self) -> list[int]:
        return [sum(f.matched_rows[i] for f in self.files if f.matched_rows) for i in range(len(self.queries))]

    @property
    def any_matches(self) -> int:
        return sum(f.any_matches for f in self.files)

    @property
    def refused(self) -> list[FileCounts]:
        return [f for f in self.files if f.refused]

    def to_dict(self) -> dict[str, Any]:
        return {"queries": self.queries, "events": self.events, "rows": self.rows, "matches": self.matches,
                "matched_rows": self.matched_rows, "any_matches": self.any_matches,
                "files": [asdict(f) for f in self.files]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskCounts:
        return cls(queries=list(data["queries"]), files=[FileCounts(**f) for f in data["files"]])


@dataclass
class Row:
    """A matching event: its file, its row there (0-based), its onset, each query's answer and its HED."""

    path: str
    row: int
    onset: float | None
    answers: list[int]
    hed: str = ""


def _answers(store_: Store, source: EventsSource, version: HedVersion | None, options: Options, queries: Sequence[str],
             handlers: Sequence[Any]) -> list[bytes]:
    return [store_.answer(source, version, options, q, h) for q, h in zip(queries, handlers, strict=True)]


def _missing(store_: Store, sources: Sequence[EventsSource], options: Options, queries: Sequence[str]) -> list[str]:
    return [s.key for s in sources if store_.needs_text(s, options, queries)]


def count(sources: Sequence[EventsSource], queries: Sequence[str], version: HedVersion | None,
          options: Options = DEFAULTS, store_: Store | None = None) -> TaskCounts:
    """Each query's matches per events file of a task (files hedtools refuses named, the rest searched)."""
    store_ = store_ or _store
    handlers = compile_queries(list(queries))
    need = _missing(store_, sources, options, queries)
    if need:  # ask for every missing text at once, before any work
        raise NeedTexts(need)
    result = TaskCounts(queries=list(queries))
    for source in sources:
        answers = _answers(store_, source, version, options, queries, handlers)
        refused = store_.refused(source, options)
        if refused:
            result.files.append(FileCounts(path=source.path, refused=refused))
            continue
        rows = store_.rows_of(source, version, options)
        hits = [sum(a) for a in answers]
        either = sum(1 for flags in zip(*answers, strict=True) if any(flags))
        matched = [len({rows[i] for i, hit in enumerate(a) if hit}) for a in answers]
        result.files.append(FileCounts(path=source.path, events=len(answers[0]), matches=hits, any_matches=either,
                                       rows=len(set(rows)), matched_rows=matched))
    return result


def file_rows(source: EventsSource, queries: Sequence[str], version: HedVersion | None, options: Options = DEFAULTS, *,
              start: int = 0, limit: int | None = None, with_hed: bool = True,
              store_: Store | None = None) -> list[Row]:
    """The events of *source* that match any query, from the *start*-th match on (at most *limit*)."""
    store_ = store_ or _store
    handlers = compile_queries(list(queries))
    events = store_.assembled_file(source, version, options)
    if events.refused:
        return []
    answers = _answers(store_, source, version, options, queries, handlers)
    rows: list[Row] = []
    seen = 0
    for index in range(len(events)):
        flags = [a[index] for a in answers]
        if not any(flags):
            continue
        seen += 1
        if seen <= start:
            continue
        rows.append(Row(path=source.path, row=events.rows[index], onset=events.onsets[index], answers=flags,
                        hed=events.hed(index) if with_hed else ""))
        if limit is not None and len(rows) >= limit:
            break
    return rows


def page(sources: Sequence[EventsSource], queries: Sequence[str], version: HedVersion | None, options: Options,
         counts: TaskCounts, *, offset: int, limit: int, store_: Store | None = None) -> list[Row]:
    """Matching rows *offset* to *offset + limit* over the task's files (in order), read from the files that
    hold them only (the counts say which)."""
    store_ = store_ or _store
    wanted = {c.path: c.any_matches for c in counts.files}
    rows: list[Row] = []
    skipped = 0
    for source in sources:
        hits = wanted.get(source.path, 0)
        if skipped + hits <= offset:
            skipped += hits
            continue
        rows += file_rows(source, queries, version, options, start=max(0, offset - skipped),
                          limit=limit - len(rows), store_=store_)
        skipped += hits
        if len(rows) >= limit:
            break
    return rows


def stream(sources: Sequence[EventsSource], queries: Sequence[str], version: HedVersion | None,
           options: Options = DEFAULTS, *, with_hed: bool = False, store_: Store | None = None) -> Iterator[Row]:
    """Every matching row of the task, one file at a time (a file's rows are made when it is reached)."""
    for source in sources:
        yield from file_rows(source, queries, version, options, with_hed=with_hed, store_=store_)


__all__ = ["STORE_ANSWERS", "STORE_EVENTS", "FileCounts", "Row", "Store", "TaskCounts", "count", "file_rows",
           "page", "store", "stream"]
