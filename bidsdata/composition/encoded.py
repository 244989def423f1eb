"""A code column that only encodes what word columns say on the same rows gets no HED of its own.

Labs often keep the trigger code a recording carried (``13``) beside the columns that say in words what
happened (a face shown, unfamiliar, first seen). Each code then stands for one combination of those words,
and a curator annotates the words and leaves the code without HED: its HED could only repeat them, or, read
from a short legend, say less or something else. A column is such an encoding when every one of its levels
is a whole number, every row it has a value on is told of by a word column too, and the word columns' values
on a row decide its code there and each code keeps to one value of a word column (a few stray rows aside;
codes the lab describes alike count as one): the code then says nothing the words do not. It is left out of the sidecar with a note naming the columns it repeats.
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


def _codes(given: object, rows: EventRows, column: str) -> bool:
    """Whether *column* holds codes: levels (or, for a template, values) that are all whole numbers."""
    if isinstance(given, Mapping):
        return len(given) >= 2 and all(_CODE.match(str(lv)) for lv in given)
    values = {row.get(column) for row in rows.all()} - set(NA) - {None}
    return isinstance(given, str) and len(values) >= 2 and all(_CODE.match(str(v)) for v in values)


def _words(levels: object) -> bool:
    return isinstance(levels, Mapping) and any(not _CODE.match(str(lv)) for lv in levels)


def encoded_by(column: str, words: list[str], rows: EventRows, described: Mapping[str, str]) -> bool:
    """Whether the *words* columns' values on each row decide *column*'s code there (a few stray rows aside):
    then the code says nothing the words do not. Codes the lab describes alike count as one."""
    decided: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    deciding: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rows.all():
        code = row.get(column)
        if code in NA or code is None:
            continue
        combo = tuple(row.get(w) or "n/a" for w in words)
        if all(v in NA for v in combo):
            return False  # a code the words say nothing of: the code column is the only word on that row
        meaning = described.get(code) or code
        decided[combo][meaning] += 1
        for word, value in zip(words, combo, strict=True):
            deciding[meaning, word][value] += 1
    # Both ways: the words decide the code, and each code keeps one value of some word column (the kind of
    # event). A code that spans events the words tell apart (one code on a stimulus and on a press) marks
    # something of its own, which the lab's description of it may say.
    meanings = {meaning for meaning, _ in deciding}
    return (len(meanings) >= 2 and _mostly_one(decided)
            and all(any(_mostly_one({w: deciding[m, w]}) for w in words) for m in meanings))


def _mostly_one(seen: Mapping[object, Counter]) -> bool:
    return all(counts.most_common(1)[0][1] >= MIN_SHARE * sum(counts.values()) for counts in seen.values())


def encoded_columns(task: TaskInventory, chosen: Mapping[str, object], rows: EventRows) -> dict[str, list[str]]:
    """column -> the word columns that decide it, for each code column that only encodes what they say."""
    words = [c for c, levels in chosen.items() if _words(levels)]
    found: dict[str, list[str]] = {}
    for column, given in chosen.items():
        if not words or not _codes(given, rows, column):
            continue
        info = task.column(column)
        if info and info.existing_hed:
            continue  # the lab's own HED for the codes is input, never replaced by silence
        described = {lv.value: lv.description for lv in info.levels if not lv.needs_description} if info else {}
        if encoded_by(column, words, rows, described):
            found[column] = words
    return found


def notes(column: str, given: object, words: list[str]) -> list[DroppedTags]:
    """One note per level (or the template) of an encoding *column*: nothing of its own to say, nothing to ask."""
    said = ", ".join(repr(w) for w in words)
    reason = (f"each code of column {column!r} stands for what column(s) {said} say on the same rows, so its HED "
              "could only repeat them; it is left without HED, as curators leave a trigger code beside the words")
    levels = [str(level) for level in given] if isinstance(given, Mapping) else [None]
    return [DroppedTags(column, level, (), redundant=True, reason=reason) for level in levels]


__all__ = ["encoded_by", "encoded_columns", "notes"]
