"""Rows whose duration covers other events: HED's ``Duration`` on their event, from the events files' own column.

A BIDS row's ``duration`` is its event's, but hedtools reads it only where HED says so. A level whose rows last
over the onsets of other events (a block during which trials come, a sound during which the participant answers)
is an event with temporal extent, which hedtools' temporal tools (``EventManager``, ``HedTypeManager``) can follow
only through ``Duration``: its HED becomes ``({duration}, (its event))`` and the ``duration`` column gets the
template ``Duration/# s`` (BIDS durations are in seconds).

Timing jitter is not covering: the next event starting a few milliseconds before the last one ends is the usual
rounding of a stimulus computer, so another event must start clearly inside the span (:data:`SLACK_S`,
:data:`SLACK_SHARE`), on most of the level's rows (:data:`SHARE`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence

from agents.hedstring import top_level_items
from bidsdata import tsv
from bidsdata.composition.tags import Names, has_event, is_group

DURATION = "duration"
"""The BIDS column every events file has; its values are seconds."""
TEMPLATE = "Duration/# s"
SLACK_S = 0.05
"""Seconds at the end of a span in which another onset counts as jitter, not as an event inside it."""
SLACK_SHARE = 0.05
"""The same, as a share of the span (a 10 s block's last half second)."""
SHARE = 0.8
"""Share of a level's rows with a duration that must cover another event's onset."""
MIN_ROWS = 2
_TIMED = re.compile(r"\b(Onset|Offset|Inset|Duration|Delay)\b|\{" + DURATION + r"\}", re.IGNORECASE)


_PLAIN = re.compile(r"\d+(\.\d*)?([eE][-+]?\d+)?")
"""A duration hedtools reads as seconds in ``Duration/# s`` (no sign, no spaces, no NaN)."""


def covering_levels(files: Iterable[Sequence[Mapping[str, str]]], column: str) -> set[str]:
    """Levels of *column* whose rows (those with a positive duration) mostly last over another event's onset.

    With a duration hedtools cannot read as seconds on any row (`` 2``, ``NaN``, ``-1``), there is none:
    hedtools checks the duration column's template on every row, referred to or not."""
    files = list(files)
    if any(not readable(row.get(DURATION)) for rows in files for row in rows):
        return set()
    spans: dict[str, list[int]] = {}  # level -> [rows with a duration, rows covering another onset]
    for rows in files:
        onsets = sorted(o for o in (tsv.onset_value(r.get("onset")) for r in rows) if o is not None)
        for row in rows:
            level = row.get(column)
            if tsv.is_na(level):
                continue
            start, length = tsv.onset_value(row.get("onset")), tsv.onset_value(row.get(DURATION))
            if start is None or length is None or length <= 0:
                continue
            end = start + length - max(SLACK_S, SLACK_SHARE * length)
            inside = bisect.bisect_left(onsets, end) - bisect.bisect_right(onsets, start)
            counts = spans.setdefault(level, [0, 0])
            counts[0] += 1
            counts[1] += inside > 0
    return {level for level, (timed, covering) in spans.items() if timed >= MIN_ROWS and covering >= SHARE * timed}


def readable(cell: str | None) -> bool:
    """Whether ``Duration/<cell> s`` validates, or the cell is missing (hedtools leaves the reference out)."""
    return tsv.is_na(cell) or bool(_PLAIN.fullmatch(cell))


def spanned(hed: str, known: Names) -> str | None:
    """*hed* as one event headed by the row's duration, or None where that cannot be said: no event type, time
    already given (Onset/Offset, Duration, Delay), or several events in the level (whose is the duration?)."""
    if not hed.strip() or _TIMED.search(hed) or not has_event(hed, known):
        return None
    items = top_level_items(hed)
    events = [i for i in items if is_group(i) and has_event(i, known)]
    if len(events) > 1 or (events and len(items) > 1 and has_event(", ".join(i for i in items if i not in events),
                                                                      known)):
        return None
    body = items[0] if len(items) == 1 and is_group(items[0]) else f"({hed})"
    return f"({{{DURATION}}}, {body})"


def with_spans(chosen: dict[str, Mapping[str, str] | str], columns: Iterable[str],
               files: Sequence[Sequence[Mapping[str, str]]], known: Names) -> list[tuple[str, str]]:
    """The levels of the event *columns* whose rows cover other events, headed by their duration (changed in
    place); the levels changed."""
    if not any(DURATION in rows[0] for rows in files if rows):
        return []
    changed = []
    for column in columns:
        levels = chosen.get(column)
        if not isinstance(levels, Mapping):
            continue
        new = dict(levels)
        for level in covering_levels(files, column) & set(levels):
            hed = spanned(levels[level], known)
            if hed is not None:
                new[level] = hed
                changed.append((column, level))
        chosen[column] = new
    return changed


def references_duration(annotations: Mapping[str, Mapping[str, str] | str]) -> bool:
    """Whether any level refers to the duration column (the sidecar must then give it its template)."""
    braced = "{" + DURATION + "}"
    return any(braced in hed for levels in annotations.values()
               for hed in (levels.values() if isinstance(levels, Mapping) else [levels]))
