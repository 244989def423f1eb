"""The rows of a task's events files, as the composer needs them: values per column, grouped by onset."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from bidsdata import tsv

NA = tsv.NA_VALUES
"""Missing as hedtools reads it: only an empty cell and ``n/a`` (``N/A`` or ``NaN`` are levels like any other)."""


@dataclass
class EventRows:
    """Every row of every events file (path -> rows), read once.

    The rows are :func:`.tsv.read`'s, shared with the other passes over the same files: read, never changed."""

    files: dict[str, Sequence[dict[str, str]]] = field(default_factory=dict)

    once: bool = False  # a row written twice at one onset, rarely (:func:`.tsv.glitch_lines`): read once

    @classmethod
    def read(cls, events: Mapping[str, str]) -> EventRows:
        return cls({path: tsv.read(text) for path, text in events.items()}, bool(tsv.glitch_lines(events)))

    def all(self) -> Iterator[dict[str, str]]:
        for rows in self.files.values():
            yield from rows

    def by_onset(self) -> Iterator[list[dict[str, str]]]:
        """The rows hedtools merges into one event: those of one file with the same onset."""
        for rows in self.files.values():
            yield from tsv.by_onset(rows, once=self.once)

    def run_length(self, column: str) -> float:
        """Mean length of the runs of one value in *column* (n/a skipped): long runs mean a condition."""
        runs, total = 0, 0
        for rows in self.files.values():
            last = None
            for row in rows:
                value = row.get(column)
                if value in NA or value is None:
                    continue
                total += 1
                if value != last:
                    runs += 1
                last = value
        return total / runs if runs else 0.0

    def present(self, column: str) -> int:
        return sum(1 for row in self.all() if row.get(column) not in NA and row.get(column) is not None)
