"""Marker columns annotated by pattern: thousands of distinct marker strings are a handful of forms.

A stimulus program that prints each event as a string (``Lantern glow: cell 12 tint:40``) writes as many
distinct strings as it has numbers to print: 3,000 distinct values is a value column no ``#`` template can carry
(commas, colons, words) and far too many levels to annotate, or to ask a lab about, one by one. Read as words
(:mod:`bidsdata.markers`), they are a few forms with numbers in them: :func:`marker_pattern` replaces each number
by ``#`` (``Lantern glow: cell # tint:#``). Each form is one level, annotated and asked about once; the sidecar
then gives every string of the form the form's HED and the tags of its own numbers
(:func:`bidsdata.markers.number_tags`: ``Item-index/12``...), so markers that differ by a number stay distinct
(:func:`expand_patterns`).

Pure Python (hedtools only through :func:`bidsdata.markers.number_tags`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from bidsdata.inventory import ColumnInventory, LevelInventory
from bidsdata.limits import MAX_NAME_CHARS
from bidsdata.markers import is_marker_text, marker_description, number_tags
from bidsdata.tsv import NA_VALUES, rows

MAX_PATTERNS = 100
"""A column of more forms than this is not annotated by pattern (its values are not a small vocabulary)."""
MAX_DISTINCT = 100_000
"""Distinct values read for a pattern column's sidecar: bounded as the upload's rows are."""
_NUMBER = re.compile(r"(?<![A-Za-z])[-+]?\d+(?:\.\d+)?")
PLACEHOLDER = "#"


def marker_pattern(value: str) -> str:
    """*value* with each number replaced by ``#``: ``Pebble drop - lane 12`` -> ``Pebble drop - lane #``. A number
    glued to letters before it (``cam2``) is part of a name, kept."""
    return _NUMBER.sub(PLACEHOLDER, value.strip())


def column_values(texts: Iterable[str], column: str, limit: int = MAX_DISTINCT) -> dict[str, int]:
    """Counts of *column*'s values (n/a left out) over events *texts*; at most *limit* distinct values."""
    counts: dict[str, int] = {}
    for text in texts:
        found = rows(text)
        header = next(found, [])
        if column not in header:
            continue
        index = header.index(column)
        for row in found:
            value = row[index] if len(row) > index else ""
            if value in NA_VALUES or (value not in counts and len(counts) >= limit):
                continue
            counts[value] = counts.get(value, 0) + 1
    return counts


def pattern_counts(counts: Mapping[str, int], limit: int = MAX_PATTERNS) -> dict[str, int] | None:
    """Rows per form of the marker strings *counts* (value -> rows), or None when they are not marker text read by
    pattern: mostly not marker text, more than *limit* forms, more than one form per two strings, or a form longer
    than a level may be (each form is stored as a level: the column stays a value column then)."""
    values = [v for v in counts if v.strip()]
    if not values or sum(1 for v in values if is_marker_text(v)) * 2 < len(values):
        return None
    found: dict[str, int] = {}
    for value in values:
        pattern = marker_pattern(value)
        if (pattern not in found and len(found) >= limit) or len(pattern) > MAX_NAME_CHARS:
            return None
        found[pattern] = found.get(pattern, 0) + counts[value]
    return found if len(found) * 2 <= len(values) else None  # forms, not nearly one per string


def pattern_description(pattern: str) -> str:
    """A made-up description of a form, from its words (the lab is asked what it means)."""
    words = marker_description(pattern.replace(PLACEHOLDER, " "))
    return f"{words.rstrip('.')}, with a number." if PLACEHOLDER in pattern else words


def expand_patterns(column: ColumnInventory, annotations: Mapping[str, str], counts: Mapping[str, int],
                    hed_version: Any) -> tuple[ColumnInventory, dict[str, str]]:
    """The pattern column *column* (its levels are forms) as the sidecar needs it: one level per marker string
    in *counts*, each with its form's description and HED (*annotations*: form -> HED) and its numbers' tags.
    Strings of a form without HED get none (the form's level is listed as missing, once)."""
    forms = {level.value: level for level in column.levels}
    levels: list[LevelInventory] = []
    hed: dict[str, str] = {}
    for value in sorted(counts):
        form = forms.get(marker_pattern(value))
        if form is None:
            continue
        levels.append(LevelInventory(value=value, count=counts[value], description=form.description,
                                     needs_description=form.needs_description))
        base = annotations.get(form.value)
        if base:  # markers that differ by a number stay distinct: each string's numbers as tags
            hed[value] = _one_group([base, *number_tags(value, hed_version)])
    return replace(column, kind="categorical", levels=levels), hed


_TEMPORAL = re.compile(r"\b(onset|offset|inset|delay|duration)\b", re.IGNORECASE)


def _one_group(parts: list[str]) -> str:
    """A string's HED as one group: two strings of one form at one onset (hedtools makes their rows one event)
    are then two groups that differ by their numbers, not the form's tags written twice (which hedtools refuses
    as repeated, and which composing by form cannot see). Temporal tags must stay at the top: left as they are."""
    text = ", ".join(parts)
    return text if _TEMPORAL.search(text) else f"({text})"


__all__ = ["MAX_PATTERNS", "column_values", "expand_patterns", "marker_pattern", "pattern_counts",
           "pattern_description"]
