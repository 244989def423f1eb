"""Keep assembled rows valid: a tag two columns give the same event must appear once.

hedtools assembles an event's HED from every column of its row and refuses a top-level tag or group
that occurs twice (TAG_EXPRESSION_REPEATED). Levels annotated one by one often repeat the event's
basics ("Sensory-event, Visual-presentation") in several columns. The event column (``event_type``,
``trial_type``... else the first categorical column) keeps them; later columns drop what an earlier
column of the same row already gives: its HED becomes one group, as curators write secondary columns,
or, where even that group would repeat, loses the repeated items. A level left with nothing says nothing
its row does not say already: it is left out of the sidecar's HED and reported, so the user can describe
what sets it apart.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agents.hedstring import parse_groups

# Characters a HED value cannot hold: a value column whose values have them cannot use a # template.
_NOT_IN_VALUES = re.compile(r"[,\[\]{}]")
_EVENT_COLUMN = re.compile(r"(^|_)(event|trial)(_?type)?$|^type$", re.IGNORECASE)


@dataclass(frozen=True)
class DroppedTags:
    """Top-level items left out of one level's HED in the sidecar, and the column that gives them."""

    column: str
    level: str | None  # None: a value column's template
    items: tuple[str, ...]
    redundant: bool = False  # every item was given by another column: the level has no HED of its own
    reason: str = ""


def top_level_items(hed: str) -> list[str]:
    """The comma-separated items of a HED string outside any parentheses, stripped."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(hed):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append(hed[start:i].strip())
            start = i + 1
    items.append(hed[start:].strip())
    return [item for item in items if item]


def _canonical(node: Any) -> str:
    if isinstance(node, str):
        return re.sub(r"\s+", "", node).lower()
    return "(" + ",".join(sorted(_canonical(child) for child in node)) + ")"


def _key(item: str) -> str:
    """What makes two items "the same" for hedtools' repeat check: case, spacing and order in groups aside."""
    return ",".join(sorted(_canonical(node) for node in parse_groups(item)))


def event_column(columns: Iterable[str]) -> str | None:
    """The column that carries the event's type, by the usual BIDS names; else the first one."""
    names = list(columns)
    return next((c for c in names if _EVENT_COLUMN.search(c)), names[0] if names else None)


def column_order(columns: Iterable[str]) -> list[str]:
    names = list(columns)
    first = event_column(names)
    return ([first] if first else []) + [c for c in names if c != first]


def _events(events: Mapping[str, str]) -> Iterable[list[dict[str, str]]]:
    """The rows hedtools assembles into one event: those of a file with the same onset, in file order."""
    for text in events.values():
        by_onset: dict[str, list[dict[str, str]]] = {}
        for n, row in enumerate(csv.DictReader(io.StringIO(text), delimiter="\t")):
            by_onset.setdefault(row.get("onset") or f"row {n}", []).append(row)
        yield from by_onset.values()


Forms = dict[tuple[str, str], list[str]]


def _repeats(forms: Forms, templates: Mapping[str, str], order: list[str], events: Mapping[str, str],
             ) -> tuple[dict[tuple[str, str], set[str]], set[tuple[str, str]]]:
    """Items each level repeats from an earlier column of the same event; levels that occur twice at one onset."""
    drops: dict[tuple[str, str], set[str]] = {}
    twice: set[tuple[str, str]] = set()
    for rows in _events(events):
        seen: dict[str, tuple[str, str | None]] = {}  # item -> the (column, level) that gave it first
        for row in rows:
            for column in order:
                if column in templates:
                    for item in top_level_items(templates[column]):
                        seen.setdefault(_key(item), (column, None))
                    continue
                level = row.get(column)
                if level is None or (column, level) not in forms:
                    continue
                if any(r is not row and r.get(column) == level for r in rows):
                    twice.add((column, level))
                for item in forms[(column, level)]:
                    if seen.setdefault(_key(item), (column, level)) != (column, level):
                        drops.setdefault((column, level), set()).add(_key(item))
    return drops, twice


def drop_repeated(annotations: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                  columns: Iterable[str]) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """*annotations* (column -> level -> HED, or column -> template) without repeats across an event's columns.

    *columns* is the sidecar's column order; the event column is taken first. A later level that repeats
    an earlier column's item becomes one group (as curators write secondary columns); where even the group
    would repeat, it drops the repeated items instead. Templates (value columns) are never changed.
    """
    annotations, notes = _usable_templates(annotations, events)
    order = [c for c in column_order(columns) if c in annotations]
    templates = {c: t for c, t in annotations.items() if isinstance(t, str)}
    items: Forms = {(c, lv): top_level_items(h) for c in order if isinstance(annotations[c], Mapping)
                    for lv, h in annotations[c].items()}
    drops, twice = _repeats(items, templates, order, events)
    forms = dict(items)
    for key in drops:
        if key not in twice and len(items[key]) > 1:
            forms[key] = ["(" + ", ".join(items[key]) + ")"]
    still, _ = _repeats(forms, templates, order, events)
    changed = set(drops) | twice
    if not changed:
        return dict(annotations), notes
    adjusted: dict[str, Mapping[str, str] | str] = {c: (dict(v) if isinstance(v, Mapping) else v)
                                                    for c, v in annotations.items()}
    for column, level in sorted(changed):
        level_map = adjusted[column]
        assert isinstance(level_map, dict)
        if (column, level) in twice:
            del level_map[level]
            notes.append(DroppedTags(column, level, tuple(items[(column, level)]), redundant=True,
                                     reason="two events at one onset share this level, and its HED would repeat "
                                            "itself"))
            continue
        if (column, level) not in still and forms[(column, level)] != items[(column, level)]:
            level_map[level] = forms[(column, level)][0]
            continue
        keys = drops[(column, level)]
        kept = [i for i in items[(column, level)] if _key(i) not in keys]
        left_out = tuple(i for i in items[(column, level)] if _key(i) in keys)
        if kept:
            level_map[level] = ", ".join(kept)
        else:
            del level_map[level]
        notes.append(DroppedTags(column, level, left_out, redundant=not kept,
                                 reason="" if kept else "it only repeats what another column of the same events "
                                 "says; describe what sets it apart and annotate it again"))
    return adjusted, notes


def _usable_templates(annotations: Mapping[str, Mapping[str, str] | str],
                      events: Mapping[str, str]) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """Leave out the templates no row can carry: values HED cannot hold, or one value twice at one onset."""
    templates = {c: t for c, t in annotations.items() if isinstance(t, str)}
    reasons: dict[str, str] = {}
    for rows in _events(events):
        seen: set[tuple[str, str]] = set()
        for row in rows:
            for column in templates:
                value = row.get(column)
                if column in reasons or value in (None, "", "n/a"):
                    continue
                if _NOT_IN_VALUES.search(value):
                    reasons[column] = f"its values hold characters a HED value cannot (such as {value!r})"
                elif (column, value) in seen:
                    reasons[column] = (f"two events at one onset share the value {value!r}, and the template "
                                       "would repeat the same tag")
                seen.add((column, value))
    kept = {c: v for c, v in annotations.items() if c not in reasons}
    return kept, [DroppedTags(c, None, (templates[c],), redundant=True, reason=f"no template: {r}")
                  for c, r in reasons.items()]
