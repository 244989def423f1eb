"""Two sidecar revisions of one task side by side, through a set of queries: which rows change their answer.

The events of one file may differ between revisions (a ``Delay`` group is an event of its own), so the
revisions are compared by the file's rows: a row answers a query when any of its events matches. Each
revision's answers come from the store of the process that holds it (:mod:`.search`).

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agents.schema import HedVersion
from bidsdata.usage.assembly import DEFAULTS, Options
from bidsdata.usage.queries import compile_queries
from bidsdata.usage.search import Store, store
from bidsdata.usage.sources import EventsSource, NeedTexts


def row_answers(sources: Sequence[EventsSource], queries: Sequence[str], version: HedVersion | None,
                options: Options = DEFAULTS, store_: Store | None = None) -> list[list[bytes] | None]:
    """Per source, per query, a 0/1 per row of the file (None for a file hedtools refuses)."""
    store_ = store_ or store()
    handlers = compile_queries(list(queries))
    need = [s.key for s in sources if store_.needs_text(s, options, queries)]
    if need:
        raise NeedTexts(need)
    found: list[list[bytes] | None] = []
    for source in sources:
        answers = [store_.answer(source, version, options, q, h) for q, h in zip(queries, handlers, strict=True)]
        if store_.refused(source, options):
            found.append(None)
            continue
        rows = store_.rows_of(source, version, options)
        size = max(rows) + 1 if len(rows) else 0
        per_query = []
        for answer in answers:
            flags = bytearray(size)
            for index, hit in enumerate(answer):
                if hit:
                    flags[rows[index]] = 1
            per_query.append(bytes(flags))
        found.append(per_query)
    return found


def row_heds(sources: Sequence[EventsSource], wanted: Sequence[Sequence[int]], version: HedVersion | None,
             options: Options = DEFAULTS, store_: Store | None = None) -> list[dict[int, list[str]]]:
    """Per source, the assembled HED of the *wanted* rows (each row's events, in order)."""
    store_ = store_ or store()
    found = []
    for source, rows in zip(sources, wanted, strict=True):
        keep = set(rows)
        heds: dict[int, list[str]] = {row: [] for row in keep}
        events = store_.assembled_file(source, version, options)
        for index, row in enumerate(events.rows):
            if row in keep and events.objects[index]:
                heds[row].append(events.hed(index))
        found.append(heds)
    return found


@dataclass
class Changed:
    """A row whose answer to some query differs between revision A and B."""

    path: str
    row: int
    a: list[int]
    b: list[int]
    hed_a: list[str] = field(default_factory=list)
    hed_b: list[str] = field(default_factory=list)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Each query's answer under A and under B."""
        return list(zip(self.a, self.b, strict=True))


@dataclass
class Comparison:
    """Per query, the rows each revision matches and how many changed; the changed rows of one page."""

    queries: list[str]
    matches_a: list[int]
    matches_b: list[int]
    gained: list[int]
    lost: list[int]
    changed: int
    rows: list[Changed]
    refused: dict[str, str] = field(default_factory=dict)

    def per_query(self) -> list[dict[str, object]]:
        """One line per query: the rows matching under A and B, and the rows gained and lost."""
        return [{"query": q, "a": self.matches_a[i], "b": self.matches_b[i], "gained": self.gained[i],
                 "lost": self.lost[i]} for i, q in enumerate(self.queries)]


def compare(paths: Sequence[str], answers_a: Sequence[list[bytes] | None], answers_b: Sequence[list[bytes] | None],
            queries: Sequence[str], *, offset: int, limit: int) -> Comparison:
    """The comparison of two revisions' row answers (:func:`row_answers`), with the changed rows *offset* to
    *offset + limit* (their HED is added by the caller)."""
    count = len(queries)
    result = Comparison(queries=list(queries), matches_a=[0] * count, matches_b=[0] * count, gained=[0] * count,
                        lost=[0] * count, changed=0, rows=[])
    for path, a, b in zip(paths, answers_a, answers_b, strict=True):
        if a is None or b is None:
            result.refused[path] = "hedtools cannot read it with " + ("either revision" if a is None and b is None
                                                                      else "one of the revisions")
            continue
        size = max((len(x) for x in [*a, *b]), default=0)
        for row in range(size):
            flags_a = [q[row] if row < len(q) else 0 for q in a]
            flags_b = [q[row] if row < len(q) else 0 for q in b]
            for i in range(count):
                result.matches_a[i] += flags_a[i]
                result.matches_b[i] += flags_b[i]
                result.gained[i] += int(flags_b[i] and not flags_a[i])
                result.lost[i] += int(flags_a[i] and not flags_b[i])
            if flags_a != flags_b:
                if offset <= result.changed < offset + limit:
                    result.rows.append(Changed(path=path, row=row, a=flags_a, b=flags_b))
                result.changed += 1
    return result


__all__ = ["Changed", "Comparison", "compare", "row_answers", "row_heds"]
