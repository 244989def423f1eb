"""A code column that only encodes what word columns say on the same rows gets no HED of its own.

Labs often keep the trigger code a recording carried (``13``) beside the columns that say in words what
happened (a face shown, unfamiliar, first seen). Each code then stands for one combination of those words,
and a curator annotates the words and leaves the code without HED: its HED could only repeat them, or, read
from a short legend, say less or something else. A column is such an encoding when every one of its levels
is a whole number, every row it has a value on is told of by a word column too, and each code stands for one
combination of the word columns' values (a few stray rows aside) and each combination for one code (or for
codes the lab describes alike). It is left out of the sidecar with a note that says which columns it repeats.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping

from bidsdata.assembly import DroppedTags
from bidsdata.composition.rows import NA, EventRows
from bidsdata.inventory import TaskInventory

_CODE = re.compile(r"^\d+$")
MIN_SHARE = 0.95
"""Share of a code's rows (and of the rows the word columns tell of) that must agree: data has stray rows."""


def _codes(levels: object) -> bool:
    return isinstance(levels, Mapping) and len(levels) >= 2 and all(_CODE.match(str(lv)) for lv in levels)


def _words(levels: object) -> bool:
    return isinstance(levels, Mapping) and any(not _CODE.match(str(lv)) for lv in levels)


def encoded_by(column: str, words: list[str], rows: EventRows, described: Mapping[str, str]) -> bool:
    """Whether *column*'s codes stand one-to-one for combinations of the *words* columns' values on its rows."""
    combos: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
    for row in rows.all():
        code = row.get(column)
        if code in NA or code is None:
            continue
        combo = tuple(row.get(w) or "n/a" for w in words)
        if all(v in NA for v in combo):
            return False  # a code the words say nothing of: the code column is the only word on that row
        combos[code][combo] += 1
    if len(combos) < 2:
        return False
    owner: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for code, seen in combos.items():
        combo, count = seen.most_common(1)[0]
        if count < MIN_SHARE * sum(seen.values()):
            return False
        owner[combo].add(code)
    # Two codes for one combination mean one thing only where the lab describes them alike.
    return all(len({described.get(c, c) for c in codes}) == 1 for codes in owner.values())


def encoded_columns(task: TaskInventory, chosen: Mapping[str, object], rows: EventRows) -> dict[str, list[str]]:
    """column -> the word columns it encodes, for each code column that only encodes what they say."""
    words = [c for c, levels in chosen.items() if _words(levels)]
    found: dict[str, list[str]] = {}
    for column, levels in chosen.items():
        if not words or not _codes(levels):
            continue
        info = task.column(column)
        described = {lv.value: lv.description for lv in info.levels} if info else {}
        if encoded_by(column, words, rows, described):
            found[column] = words
    return found


def notes(column: str, levels: Mapping[str, object], words: list[str]) -> list[DroppedTags]:
    """One note per level of an encoding *column*: nothing of its own to say, so nothing to ask the lab."""
    said = ", ".join(repr(w) for w in words)
    return [DroppedTags(column, str(level), (), redundant=True, reason=(
        f"each code of column {column!r} stands for what column(s) {said} say on the same rows, so its HED could "
        "only repeat them; it is left without HED, as curators leave a trigger code beside the words"))
        for level in levels]


__all__ = ["encoded_by", "encoded_columns", "notes"]
