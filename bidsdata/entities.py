"""BIDS entities of a file name (``sub-01_task-X_run-1``), and columns that only repeat them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath

_ENTITY = re.compile(r"^([a-zA-Z0-9]+)-([a-zA-Z0-9]+)$")


def entities(path: str) -> dict[str, str]:
    """BIDS entities of a file name: ``sub-01_task-X_run-1_events.tsv`` -> ``{sub: 01, task: X, run: 1}``."""
    stem = PurePosixPath(path).name.split(".", 1)[0]
    found: dict[str, str] = {}
    for part in stem.split("_")[:-1]:  # the last part is the suffix (events)
        m = _ENTITY.match(part)
        if m:
            found[m.group(1)] = m.group(2)
    return found


_FILE_NUMBERS = ("run", "ses")


def repeats_file_entity(counts: Mapping[str, int], found: Mapping[str, str]) -> bool:
    """Whether a column holds one value in a file, and that value is the file's run (or session) number as its
    name gives it (``run-02`` and ``2``): the column repeats the file name, bookkeeping, never a condition."""
    if len(counts) != 1:
        return False
    value = next(iter(counts))
    numbers = [found[e] for e in _FILE_NUMBERS if e in found]
    return any(value == n or (value.isdigit() and n.isdigit() and int(value) == int(n)) for n in numbers)


__all__ = ["entities", "repeats_file_entity"]
