"""Value columns that hold times on the recording's clock: when other things of the row happened.

An events file's ``onset`` places each row's event on the recording's clock. A lab often logs, beside it,
when other parts of the trial happened on that same clock (the moment a countdown began, when feedback
appeared). Such a value is no property of the row's event: HED in a sidecar can say how long after the
onset something happens (``Delay``) but cannot subtract the onset from a cell, so the column is left out
with a note telling the lab how to annotate those moments: as rows of their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bidsdata.numbers import is_number

MIN_PAIRS = 5
"""Rows of one file with a numeric onset and value needed to judge that file."""
NEAR = 0.1
"""How close to the onset a value must lie, as a share of the file's span of onsets."""
SHARE_NEAR = 0.9
"""Share of a file's rows whose value lies that close."""
SCALES = (1.0, 0.001)
"""The clock in the onset's seconds, or in milliseconds."""


def _pairs(rows: Sequence[Mapping[str, str]], column: str) -> list[tuple[float, float]]:
    found = []
    for row in rows:
        onset, value = row.get("onset", ""), row.get(column, "")
        if is_number(onset) and is_number(value):
            found.append((float(onset), float(value)))
    return found


def _tracks_onset(pairs: list[tuple[float, float]], scale: float) -> bool:
    """The values advance with the onsets and stay near them: the same clock."""
    onsets = [o for o, _ in pairs]
    values = [v * scale for _, v in pairs]
    span = max(onsets) - min(onsets)
    if span <= 0 or max(values) - min(values) < 0.5 * span:
        return False
    near = sum(1 for o, v in zip(onsets, values, strict=True) if abs(v - o) <= NEAR * span)
    return near >= SHARE_NEAR * len(pairs)


def on_the_clock(files: Iterable[Sequence[Mapping[str, str]]], column: str) -> bool:
    """Whether *column* holds, in every file that has enough of them, times on the recording's clock."""
    judged = False
    for rows in files:
        pairs = _pairs(rows, column)
        if len(pairs) < MIN_PAIRS:
            continue
        if not any(_tracks_onset(pairs, scale) for scale in SCALES):
            return False
        judged = True
    return judged


REASON = "its values are times on the recording's clock, which a sidecar cannot place"


def fix(column: str) -> str:
    """What the lab does to annotate the moments the column holds."""
    return (f"add the moments in column `{column}` (times on the recording's clock) as rows of their own, "
            f"onset = the value; a sidecar cannot place them")
