"""Columns that describe an event, referenced as ``{column}`` inside it, as curators write them.

Nested, a column's HED belongs to its row's event: rows at one onset (which hedtools merges into one event
string) stay apart, and an event with several groups keeps its modifiers in the right one. A column is
nested only where every row that gives it a value has an event to hold it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bidsdata.composition.distinct import key
from bidsdata.composition.events import event_groups
from bidsdata.composition.roles import CONDITION, EVENT, MODIFIER, VALUE
from bidsdata.composition.rows import NA, EventRows
from bidsdata.composition.tags import Names, has_event, inside, is_group, top_level_items
from bidsdata.types import ComposedHed

STRAY_SHARE = 0.02
"""Share of a column's rows that may lack an event to hold it, and the column still be nested."""

_OFFSET = re.compile(r"^\(Def/[^,()]+, Offset\)$")


def _opens(hed: str) -> list[str] | None:
    """The items of the ``Onset`` group a level opens with (``Def/X``, what it adds, ``Onset``), when all the
    level does is start something lasting (and perhaps end another): a start code, a display replacing the one
    before. None for any other level."""
    items = top_level_items(hed)
    if not items or not all(is_group(i) for i in items):
        return None
    first = top_level_items(inside(items[0]))
    if len(first) not in (2, 3) or not first[0].startswith("Def/") or first[-1] != "Onset":
        return None
    if len(first) == 3 and not is_group(first[1]):
        return None
    return first if all(_OFFSET.match(i) for i in items[1:]) else None


def nestable(column: str, event: str, annotations: ComposedHed, rows: EventRows, known: Names) -> bool:
    """Every row where *column* has a value (but a stray few: :data:`STRAY_SHARE`) has an event from *event* to
    hold it: an event group, or the Onset of something that lasts (its content group). An Offset holds nothing:
    there the value is not said."""
    levels = annotations.get(event)
    if not isinstance(levels, Mapping):
        return False
    holds = {lv for lv, hed in levels.items() if event_groups(hed, known) or _opens(hed) or _OFFSET.match(hed)}
    given = [row.get(event) in holds for row in rows.all() if row.get(column) not in NA]
    # A few stray rows (an event logged without its type) must not keep the column beside every event, where
    # each row with two events fails hedtools' event checks; on those few rows the value goes unsaid.
    return given.count(False) <= STRAY_SHARE * len(given)


def _twice_at_an_onset(column: str, rows: EventRows) -> bool:
    return any(sum(1 for row in group if row.get(column) not in NA and row.get(column) is not None) > 1
               for group in rows.by_onset())


def nested_columns(annotations: ComposedHed, roles: Mapping[str, str], rows: EventRows, known: Names) -> list[str]:
    """The columns to reference as ``{column}`` inside the event column's event.

    Modifier and value columns whose rows all have an event to hold them; a condition column too where two
    events at one onset share its level (at top level hedtools would see its Def twice in one event)."""
    events = [c for c, r in roles.items() if r == EVENT]
    if not events:
        return []
    nested = []
    for column, role in roles.items():
        given = annotations.get(column)
        if not given or role not in (MODIFIER, VALUE, CONDITION):
            continue
        if role == CONDITION and not _twice_at_an_onset(column, rows):
            continue
        texts = [given] if isinstance(given, str) else list(given.values())
        if any(has_event(t, known) or "delay/" in t.lower() or "onset" in t.lower() for t in texts):
            continue
        if referable(column) and nestable(column, events[0], annotations, rows, known):
            nested.append(column)
    return nested


_REFERABLE = re.compile(r"^[A-Za-z0-9_-]+$")


def referable(column: str) -> bool:
    """hedtools reads ``{column}`` for names of letters, digits, ``_`` and ``-`` only (``{parametric gain}``
    would stay text, and the column would be assembled at top level as well). A name of digits alone is no
    reference either: hedtools puts ``{3}`` unescaped into a regular expression, where it is a repeat count,
    and assembling a row then raises."""
    return bool(_REFERABLE.match(column)) and not column.isdigit()


def carried(event: str, nested: list[str], rows: EventRows | None) -> dict[str, list[str]]:
    """Level of *event* -> the nested columns its rows give a value (all of them when the rows are unknown).

    A level references only the columns that say something on its rows: where a table fills one value column
    per kind of event (each a regressor of that event), each level carries its own, and levels otherwise
    annotated alike differ by what they carry, as they do in the data."""
    if rows is None:
        return {}
    found: dict[str, set[str]] = {}
    for row in rows.all():
        level = row.get(event)
        if level is None or level in NA:
            continue
        found.setdefault(level, set()).update(c for c in nested if row.get(c) not in NA and row.get(c) is not None)
    return {level: [c for c in nested if c in columns] for level, columns in found.items()}


def reference(annotations: ComposedHed, event: str, nested: list[str], known: Names,
              definitions: Mapping[str, str] | None = None, rows: EventRows | None = None) -> None:
    """``{column}`` of each nested column added to the first event group of every level of *event* whose rows
    give it a value (:func:`carried`; every level when *rows* is None)."""
    # A nested column left with nothing of its own stays referenced: its levels are told apart later, and a
    # reference to a column that ends with no HED at all is taken out (:func:`unreferenced`).
    _dedupe_nested(annotations, event, nested, known, definitions or {})
    per_level = carried(event, nested, rows)
    levels = dict(annotations[event])
    for level, hed in levels.items():
        mine = per_level.get(level, nested)  # a level no row has keeps every reference
        if not mine:
            continue  # its rows give none of the nested columns a value: nothing to carry
        refs = ", ".join(f"{{{c}}}" for c in mine)
        groups = event_groups(hed, known)
        if groups:
            levels[level] = hed.replace(groups[0], groups[0][:-1] + ", " + refs + ")", 1)
        elif opens := _opens(hed):
            adds = top_level_items(inside(opens[1])) if len(opens) == 3 else []
            group = "(" + ", ".join([opens[0], "(" + ", ".join([*adds, refs]) + ")", "Onset"]) + ")"
            levels[level] = ", ".join([group, *top_level_items(hed)[1:]])
    annotations[event] = levels


def nested_items(annotations: ComposedHed, roles: Mapping[str, str], nested: list[str], column: str,
                 known: Names, definitions: Mapping[str, str] | None = None) -> set[tuple[str, ...]]:
    """Keys of the items *column*'s levels must not add: what the event groups (or the definitions the event
    starts) and the other nested columns already put into the same group."""
    event = next(c for c, r in roles.items() if r == EVENT)
    seen: set[tuple[str, ...]] = set()
    for hed in annotations[event].values():
        seen |= {key(item, known) for item in _event_items(hed, known, definitions or {})}
    for other in nested:
        given = annotations.get(other)
        if other == column or not given:
            continue
        for text in [given] if isinstance(given, str) else given.values():
            seen |= {key(item, known) for item in top_level_items(text)}
    return seen


def _event_items(hed: str, known: Names, definitions: Mapping[str, str]) -> list[str]:
    """The items of a level's event: its first event group's, or those of the definition it starts."""
    for group in event_groups(hed, known)[:1]:
        return top_level_items(inside(group))
    opens = _opens(hed)
    defined = definitions.get(opens[0][len("Def/"):], "") if opens else ""
    body = top_level_items(inside(defined))[1:] if defined else []
    return top_level_items(inside(body[0])) if body else []


def _dedupe_nested(annotations: ComposedHed, event: str, nested: list[str], known: Names,
                   definitions: Mapping[str, str]) -> None:
    """Levels of nested columns lose the items an event group (or an earlier nested column) already has.

    hedtools validates a sidecar's ``{column}`` references with every level of the referenced column in
    every level that references it, and refuses an item repeated within one group; so the check is over
    all combinations, not only those that occur in the events files."""
    seen: set[tuple[str, ...]] = set()
    for hed in annotations[event].values():
        seen |= {key(item, known) for item in _event_items(hed, known, definitions)}
    for column in nested:
        given = annotations[column]
        if isinstance(given, str):
            seen |= {key(item, known) for item in top_level_items(given)}
    for column in nested:
        levels = annotations[column]
        if not isinstance(levels, Mapping):
            continue
        kept = {lv: [i for i in top_level_items(h) if key(i, known) not in seen] for lv, h in levels.items()}
        annotations[column] = {lv: ", ".join(items) for lv, items in kept.items()}
        seen |= {key(i, known) for items in kept.values() for i in items}


def unreferenced(chosen: ComposedHed, roles: Mapping[str, str]) -> None:
    """``{column}`` references to a column left with no HED are taken out (hedtools refuses them), from event
    levels and from value templates (a response time holding the columns that tell of the response)."""
    for column, given in chosen.items():
        if isinstance(given, str):
            chosen[column] = _without_gone(given, chosen)
        elif roles.get(column) == EVENT and isinstance(given, Mapping):
            for level, hed in given.items():
                given[level] = _without_gone(hed, chosen)


def _without_gone(hed: str, chosen: ComposedHed) -> str:
    for ref in re.findall(r"\{([^}]*)\}", hed):
        if ref not in chosen:
            hed = without_reference(hed, ref)
    return hed


def without_reference(hed: str, column: str) -> str:
    """*hed* without its ``{column}``: after another item, before one ("({gone}, {kept})"), or a group of its own."""
    braced = r"\{" + re.escape(column) + r"\}"
    hed = re.sub(r",\s*" + braced, "", hed)
    hed = re.sub(braced + r"\s*,\s*", "", hed)
    return re.sub(r",?\s*\(\s*" + braced + r"\s*\)", "", hed)
