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
from bidsdata.composition.definitions import (
    ENTRY,
    Definitions,
    conditions,
    defined_names,
    free_entry,
    lasting,
    repeated_content,
)
from bidsdata.composition.displays import screen_displays
from bidsdata.composition.distinct import distinguish, level_texts
from bidsdata.composition.events import complete_event, one_event
from bidsdata.composition.factorial import cross_factors
from bidsdata.composition.markers import with_marker_numbers
from bidsdata.composition.nesting import nested_columns, nested_items, reference, unreferenced
from bidsdata.composition.roles import CONDITION, EVENT, MODIFIER, VALUE, column_roles
from bidsdata.composition.rows import NA, EventRows
from bidsdata.composition.tags import Names, has_event, names
from bidsdata.glossary import Glossary, readme_description
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
    entry: str = ENTRY
    """The sidecar key of :attr:`definitions`: one no column or key of the lab's is named."""

    def apply(self, sidecar: dict[str, Any]) -> dict[str, Any]:
        """*sidecar* (built from :attr:`annotations`) with the definitions entry added."""
        if self.definitions:
            sidecar[self.entry] = self.definitions
        return sidecar


def lab_names(task: TaskInventory, events: Mapping[str, str]) -> list[str]:
    """Every name the lab uses for a column or sidecar key: the composed entry must be none of them."""
    headers = [name for text in events.values() for name in text.partition("\n")[0].rstrip("\r").split("\t")]
    return [c.name for c in task.columns] + list(task.original_sidecar) + headers


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


def _padded(column: str, given: Mapping[str, str] | str, rows: EventRows) -> str | None:
    """A value of *column* that begins or ends with whitespace, if any: a level key or a cell."""
    values = list(given) if isinstance(given, Mapping) else []
    values += [row[column] for row in rows.all() if isinstance(row.get(column), str)]
    return next((v for v in values if v != v.strip() and v.strip() not in NA), None)


def _without_padded(chosen: Annotations, rows: EventRows) -> list[DroppedTags]:
    """Columns whose values begin or end with spaces lose their HED, each with the fix as a note.

    hedtools uses a value exactly as written and refuses HED for a column holding a padded one (a tabular
    error for the whole file), so no annotation of the column can be kept: the lab must fix the data, and
    one such column must not send the whole task back to the levels' plain HED."""
    notes = []
    for column in list(chosen):
        value = _padded(column, chosen[column], rows)
        if value is None:
            continue
        del chosen[column]
        notes.append(DroppedTags(column, None, (), reason=(
            f"its values begin or end with spaces (such as {value!r}), and hedtools uses values exactly as "
            f"written: remove the spaces from column {column!r} in the events files, then annotate it again")))
        logger.info("column %s left without HED: padded value %r", column, value)
    return notes


def _glossary(task: TaskInventory) -> Glossary:
    """The task's own words, most specific first, for reading what its level codes abbreviate."""
    context = task.context
    return Glossary.of([
        [context.task_name, context.task_description],
        [readme_description(context.readme), context.instructions],
        [c.description for c in task.columns if c.description and not c.needs_description]])


def _named_only(chosen: Annotations, roles: Mapping[str, str], rows: EventRows, labelled: list[tuple[str, str]],
                main: str | None, known: Names) -> list[DroppedTags]:
    """Columns besides the main event column whose levels are told apart only by their names lose their HED.

    Without their Labels, such levels all say the same thing (``Correct-action`` for both codes 0 and 1 of a
    column) and a Label adds a name, not a meaning: the column's HED would say something false of some of its
    rows. It is left out, each level with a note asking what sets it apart. An event column is left out only
    where every row it has a value in gets its event from the main event column (or its levels hold no event
    type), so no row loses its event."""
    named: dict[str, set[str]] = {}
    for column, level in labelled:
        named.setdefault(column, set()).add(level)
    notes = []
    for column, levels in named.items():
        given = chosen.get(column)
        if column == main or roles.get(column) not in (EVENT, MODIFIER) or not isinstance(given, Mapping):
            continue
        if set(given) - levels or len(given) < 2 or len({_unnamed(h) for h in given.values()}) > 1:
            continue
        if roles[column] == EVENT and any(has_event(h, known) for h in given.values()) \
                and not _covered(column, main, chosen, rows):
            continue
        del chosen[column]
        labelled[:] = [(c, lv) for c, lv in labelled if c != column]
        notes += [DroppedTags(column, level, (), reason=(
            "its levels are told apart only by their names, so their HED said the same of every level: "
            "describe what each level of the column means"))
            for level in sorted(levels)]
    return notes


def _unnamed(hed: str) -> str:
    """*hed* without its Labels, for comparing what levels say."""
    return re.sub(r"\s+", "", re.sub(r"Label/[^,()]*", "", hed)).replace(",,", ",").strip(",")


def _covered(column: str, main: str | None, chosen: Annotations, rows: EventRows) -> bool:
    """Every row with a value in *column* has a level of the *main* event column with HED."""
    levels = chosen.get(main) if main else None
    if not isinstance(levels, Mapping):
        return False
    return all(levels.get(row.get(main) or "") for row in rows.all() if row.get(column) not in NA)


def compose_task(task: TaskInventory, annotations: Mapping[str, Mapping[str, str] | str],
                 events: Mapping[str, str], schema_version: str | list[str] | None) -> Composition:
    """The sidecar HED for *task* from the levels' annotations (column -> level -> HED, or a template)."""
    known = names(schema_version)
    annotations, marked = with_marker_numbers(task, annotations, events, schema_version)
    chosen, notes = usable_templates(annotations, events)
    notes += marked
    chosen = {c: dict(v) if isinstance(v, Mapping) else v for c, v in chosen.items()}
    rows = EventRows.read(events)
    notes += _without_padded(chosen, rows)
    roles = column_roles(task, chosen, rows, known)
    modality = _modality(task, chosen)
    defs = Definitions(taken=defined_names(task.original_sidecar))
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
    main = next((c for c, r in roles.items() if r == EVENT), None)
    glossary = _glossary(task)
    factors += cross_factors(chosen, roles, glossary, known, schema_version, defs)
    for column, role in roles.items():
        levels = chosen.get(column)
        if role in (EVENT, MODIFIER) and isinstance(levels, Mapping) and len(levels) > 1:
            texts = level_texts(levels, _describe(task, column), glossary)
            inner = column in nested
            chosen[column], named = distinguish(
                levels, texts, known, schema_version, nested=role == EVENT,
                hints=_implied(column, chosen, roles, rows, nested) if inner else None,
                avoid=nested_items(chosen, roles, nested, column, known, defs.strings) if inner else None,
                # Only the main event column's Labels go without its name: two columns' "Label/0" in one
                # event would be a repeated tag.
                label_prefix=f"{column}-" if inner or column != main else "")
            labelled += [(column, lv) for lv in named]
    for column in [c for c, r in roles.items() if r == MODIFIER and isinstance(chosen.get(c), Mapping)]:
        # A level whose own HED only repeated its event's keeps a name in the sidecar, never a hole.
        for level in [lv for lv, h in chosen[column].items() if not h.strip()]:
            name = re.sub(r"[^A-Za-z0-9_-]+", "-", (f"{column}-" if column in nested else "") + level).strip("-")
            chosen[column][level] = f"Label/{name or 'level'}"
            labelled.append((column, level))
            notes.append(DroppedTags(column, level, (), reason="its own HED only repeated what its event says; "
                                     "describe what sets it apart"))
    notes += _named_only(chosen, roles, rows, labelled, main, known)
    chosen = {c: v for c, v in chosen.items() if v}
    unreferenced(chosen, roles)
    repeated_content(chosen, roles, known, defs)
    return Composition(annotations=chosen, definitions=defs.entry() if defs.strings else None, roles=roles,
                       factors=factors, labelled=labelled, notes=notes, entry=free_entry(lab_names(task, events)))


def plain_composition(annotations: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                      columns: list[str], schema_version: str | list[str] | None) -> Composition:
    """The levels' own HED with only repeats across an event's columns taken out: the floor to fall back on."""
    chosen, notes = drop_repeated(annotations, events, columns, schema_version)
    return Composition(annotations=dict(chosen), notes=notes)


__all__ = ["CONDITION", "Composition", "compose_task", "plain_composition"]
