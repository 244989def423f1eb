"""A task's sidecar HED composed as a curator would write it, from the levels' own annotations.

Each level is annotated alone (a run per level, reviewed per level); this is where they become one
sidecar: columns get roles (:mod:`.roles`), start/end codes become Onset/Offset and factors
Condition-variable definitions (:mod:`.definitions`), screen displays that replace one another the Onset of
what each shows and the Offset of the one before (:mod:`.displays`), marker strings' numbers tag values
(:mod:`.markers`), modifier columns lose event types of their own,
each event is one completed group (:mod:`.events`), columns that describe an event are nested into it with
``{column}``, and levels of a column are told apart (:mod:`.distinct`). The levels' own annotations are
never changed; what the sidecar does differently is reported in the notes.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bidsdata.assembly import DroppedTags, drop_repeated, usable_templates, without_event_types
from bidsdata.composition import cues
from bidsdata.composition.definitions import ENTRY, Definitions, conditions, lasting, repeated_content
from bidsdata.composition.displays import screen_displays
from bidsdata.composition.distinct import distinguish, level_texts
from bidsdata.composition.events import complete_event, one_event
from bidsdata.composition.markers import with_marker_numbers
from bidsdata.composition.nesting import nested_columns, nested_items, reference, unreferenced
from bidsdata.composition.roles import CONDITION, EVENT, MODIFIER, VALUE, column_roles
from bidsdata.composition.rows import NA, EventRows
from bidsdata.composition.tags import Names, has_event, names
from bidsdata.inventory import TaskInventory

logger = logging.getLogger(__name__)

Annotations = dict[str, Any]


@dataclass
class Composition:
    """The sidecar's HED per column, its definitions entry, and what was decided on the way."""

    annotations: Annotations
    definitions: dict[str, object] | None = None
    roles: dict[str, str] = field(default_factory=dict)
    factors: list[str] = field(default_factory=list)
    labelled: list[tuple[str, str]] = field(default_factory=list)
    notes: list[DroppedTags] = field(default_factory=list)
    fallback: str = ""
    """Why the levels' own HED is used instead (a composition hedtools found errors in); empty when composed."""

    def apply(self, sidecar: dict[str, Any]) -> dict[str, Any]:
        """*sidecar* (built from :attr:`annotations`) with the definitions entry added."""
        if self.definitions:
            sidecar[ENTRY] = self.definitions
        return sidecar


def _describe(task: TaskInventory, column: str) -> dict[str, str]:
    col = task.column(column)
    if col is None:
        return {}
    return {lv.value: lv.description for lv in col.levels if lv.description and not lv.needs_description}


def _modality(task: TaskInventory, annotations: Annotations) -> str:
    """The sense most of the task's levels are presented to: the default for a sensory event that says none."""
    said: Counter[str] = Counter()
    for column in task.columns:
        for level in column.levels:
            said[cues.modality(cues.words(level.description, level.value), "")] += 1
    context = getattr(task, "context", None)
    if context is not None:
        for text in (getattr(context, "task_description", ""), getattr(context, "readme", "")):
            said[cues.modality(cues.words(text or ""), "")] += 1
    said.pop("", None)
    return said.most_common(1)[0][0] if said else "Visual-presentation"


_INNERMOST = re.compile(r"\([^()]*\)")


def _completed_template(template: str, task: TaskInventory, column: str, known: Names, modality: str) -> str:
    """A value column's template whose event (inside a Delay group, say) is completed like a level's."""
    col = task.column(column)
    said = cues.words(column, col.description if col else "")

    def complete(match: re.Match[str]) -> str:
        group = match.group(0)
        return complete_event(group[1:-1], said, known, modality) if has_event(group, known) else group

    return _INNERMOST.sub(complete, template)


def _beside_the_event(chosen: Annotations, roles: Mapping[str, str], nested: list[str], known: Names) -> bool:
    """Whether a modifier or value column that could not be nested puts a group of its own beside the event
    (a Delay group is an event of its own, and a condition's Def is no group)."""
    for column, role in roles.items():
        given = chosen.get(column)
        if role not in (MODIFIER, VALUE) or column in nested or not given:
            continue
        texts = [given] if isinstance(given, str) else list(given.values())
        if any("(" in t and "delay/" not in t.lower() and not has_event(t, known) for t in texts):
            return True
    return False


def _implied(column: str, chosen: Annotations, roles: Mapping[str, str], rows: EventRows,
             nested: list[str]) -> dict[str, list[str]]:
    """level -> the condition levels (as their ``Def/...``) that every row of the level is in.

    A code column beside factor columns (code 6 on every "famous face, immediate repeat" row) means
    those conditions; saying so tells codes apart by what they mean rather than by their names."""
    # A factor nested into the same event says it there already: repeated in one group, hedtools refuses it.
    factors = [c for c, r in roles.items() if r == CONDITION and isinstance(chosen.get(c), Mapping)
               and c not in nested]
    found: dict[str, dict[str, set[str]]] = {}
    for row in rows.all():
        value = row.get(column)
        if value in NA or value is None:
            continue
        seen = found.setdefault(value, {})
        for factor in factors:
            level = row.get(factor)
            seen.setdefault(factor, set()).add(level if level in chosen[factor] else "")
    return {value: [chosen[f][next(iter(levels))] for f, levels in seen.items()
                    if len(levels) == 1 and "" not in levels]
            for value, seen in found.items()}


def compose_task(task: TaskInventory, annotations: Mapping[str, Mapping[str, str] | str],
                 events: Mapping[str, str], schema_version: str | list[str] | None) -> Composition:
    """The sidecar HED for *task* from the levels' annotations (column -> level -> HED, or a template)."""
    known = names(schema_version)
    annotations, marked = with_marker_numbers(task, annotations, events, schema_version)
    chosen, notes = usable_templates(annotations, events)
    notes += marked
    chosen = {c: dict(v) if isinstance(v, Mapping) else v for c, v in chosen.items()}
    rows = EventRows.read(events)
    roles = column_roles(task, chosen, rows, known)
    modality = _modality(task, chosen)
    defs = Definitions()
    lasting_levels = lasting(task, chosen, roles, known, defs, modality)
    factors = conditions(task, chosen, roles, known, defs)
    for column, role in roles.items():
        if role != MODIFIER:
            continue
        for level, hed in list(chosen[column].items()):
            kept, _ = without_event_types(hed, schema_version)
            chosen[column][level] = kept
    for column, role in roles.items():
        if role == VALUE and has_event(chosen[column], known):
            chosen[column] = _completed_template(chosen[column], task, column, known, modality)
        if role != EVENT:
            continue
        describe = _describe(task, column)
        for level, hed in chosen[column].items():
            if (column, level) not in lasting_levels:
                text = cues.words(describe.get(level) or level.replace("_", " "))
                chosen[column][level] = complete_event(hed, text, known, modality)
    event = next((c for c, r in roles.items() if r == EVENT), None)
    if event is not None:
        screen_displays(task, chosen, roles, rows, known, defs, _describe(task, event))
    nested = nested_columns(chosen, roles, rows, known)
    if _beside_the_event(chosen, roles, nested, known):
        for column in [c for c, r in roles.items() if r == EVENT]:
            chosen[column] = {lv: one_event(h, known) for lv, h in chosen[column].items()}
    if nested:
        reference(chosen, next(c for c, r in roles.items() if r == EVENT), nested, known, defs.strings)
    # Repeats across the columns left at top level (the nested ones are deduplicated inside their event).
    order = [c for c, r in roles.items() if r == EVENT] + [c for c in chosen if roles.get(c) != EVENT]
    top, dropped = drop_repeated({c: v for c, v in chosen.items() if c not in nested}, events,
                                 [c for c in order if c not in nested], schema_version)
    chosen = {**top, **{c: chosen[c] for c in nested}}
    notes += dropped
    labelled: list[tuple[str, str]] = []
    for column, role in roles.items():
        levels = chosen.get(column)
        if role in (EVENT, MODIFIER) and isinstance(levels, Mapping) and len(levels) > 1:
            texts = level_texts(levels, _describe(task, column))
            inner = column in nested
            chosen[column], named = distinguish(
                levels, texts, known, schema_version, nested=role == EVENT,
                hints=_implied(column, chosen, roles, rows, nested) if inner else None,
                avoid=nested_items(chosen, roles, nested, column, known, defs.strings) if inner else None,
                label_prefix=f"{column}-" if inner else "")
            labelled += [(column, lv) for lv in named]
    for column in [c for c, r in roles.items() if r == MODIFIER and isinstance(chosen.get(c), Mapping)]:
        # A level whose own HED only repeated its event's keeps a name in the sidecar, never a hole.
        for level in [lv for lv, h in chosen[column].items() if not h.strip()]:
            name = re.sub(r"[^A-Za-z0-9_-]+", "-", (f"{column}-" if column in nested else "") + level).strip("-")
            chosen[column][level] = f"Label/{name or 'level'}"
            labelled.append((column, level))
            notes.append(DroppedTags(column, level, (), reason="its own HED only repeated what its event says; "
                                     "describe what sets it apart"))
    chosen = {c: v for c, v in chosen.items() if v}
    unreferenced(chosen, roles)
    repeated_content(chosen, roles, known, defs)
    return Composition(annotations=chosen, definitions=defs.entry() if defs.strings else None, roles=roles,
                       factors=factors, labelled=labelled, notes=notes)


def plain_composition(annotations: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                      columns: list[str], schema_version: str | list[str] | None) -> Composition:
    """The levels' own HED with only repeats across an event's columns taken out: the floor to fall back on."""
    chosen, notes = drop_repeated(annotations, events, columns, schema_version)
    return Composition(annotations=dict(chosen), notes=notes)


__all__ = ["CONDITION", "Composition", "compose_task", "plain_composition"]
