"""Definitions a curator writes: a factor's levels as ``Condition-variable`` definitions, and things that
last (a start code and its end code) as ``Onset``/``Offset`` of one definition.

Definitions go to one ``hed_def_*`` sidecar entry (:data:`ENTRY`, or :func:`free_entry` when the lab's
columns or sidecar use that name); levels then say ``Def/Name``, so hedtools' HedTypeManager recovers each
factor and its levels, and the EventsChecker sees the lasting things as the temporal events they are. The
names made never repeat a definition of the lab's own sidecar (:func:`defined_names`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from bidsdata.composition import cues
from bidsdata.composition.events import event_groups
from bidsdata.composition.lasting import content_of, pairs
from bidsdata.composition.parametric import parametric, stem_name
from bidsdata.composition.roles import CONDITION, EVENT
from bidsdata.composition.tags import (
    EVENT_TYPES,
    TASK_ROLES,
    Names,
    inside,
    is_group,
    shorts,
    top_level_items,
)
from bidsdata.inventory import TaskInventory

ENTRY = "hed_def_composed"
_STOP = {"a", "an", "the", "of", "to", "from", "with", "in", "on", "at", "for", "and", "or", "by", "is", "are",
         "this", "that", "which", "be", "showing", "presentation"}
_NAME = re.compile(r"[^A-Za-z0-9-]+")
_DEFINED = re.compile(r"\bDefinition/([^\s,()/]+)", re.IGNORECASE)  # the name, without a placeholder's /#


def free_entry(taken: Iterable[str]) -> str:
    """:data:`ENTRY`, or ``ENTRY_2``... when the lab has a column or sidecar key of that name (case-folded: a
    sidecar written over the lab's column would lose that column's HED)."""
    folded = {name.casefold() for name in taken}
    name, n = ENTRY, 2
    while name.casefold() in folded:
        name, n = f"{ENTRY}_{n}", n + 1
    return name


def defined_names(value: object) -> set[str]:
    """The names, lower-cased, of every ``Definition/`` anywhere in *value* (the lab's uploaded sidecar)."""
    if isinstance(value, str):
        return {name.lower() for name in _DEFINED.findall(value)}
    if isinstance(value, Mapping):
        return set().union(*(defined_names(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(defined_names(v) for v in value)) if value else set()
    return set()


@dataclass
class Definitions:
    """Definition name -> its ``(Definition/Name, (...))`` string, names kept unique among themselves and
    apart from *taken* (the lab's own definitions, lower-cased: hedtools refuses a name defined twice)."""

    strings: dict[str, str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)

    def add(self, name: str, content: str) -> str:
        base, n = name, 2
        while name.lower() in self.taken | {k.lower() for k in self.strings}:
            name, n = f"{base}-{n}", n + 1
        body = content if is_group(content) else f"({content})"
        self.strings[name] = f"(Definition/{name}, {body})" if content else f"(Definition/{name})"
        return name

    def entry(self) -> dict[str, object]:
        """The sidecar's definitions entry, by name: the same dataset gives the same file, byte for byte,
        whatever order the passes found the definitions in."""
        return {"Description": "Definitions of the task's conditions and of things that last (composed).",
                "HED": {name.lower(): text for name, text in sorted(self.strings.items(),
                                                                    key=lambda item: item[0].lower())}}


def def_name(text_words: list[str], limit: int = 6) -> str:
    # A last word kept whatever it is: "area a" names area A, not an area.
    kept = [w for i, w in enumerate(text_words) if w not in _STOP or i == len(text_words) - 1][:limit]
    kept = kept or text_words[:limit] or ["Item"]
    name = _NAME.sub("", "-".join(kept))
    return (name[:1].upper() + name[1:]) if name[:1].isalpha() else f"X-{name}"


def _level_words(task: TaskInventory, column: str, level: str) -> list[str]:
    col = task.column(column)
    lv = col.level(level) if col else None
    described = lv is not None and lv.description and not lv.needs_description
    return cues.words(lv.description if described else level.replace("_", " "))


def _without_types(hed: str, known: Names) -> str:
    """*hed* without what belongs to an event rather than a factor: event types and task roles (levels annotated
    alone open with them; the event the factor applies to says them). A modality stays: "attend to sounds"
    is a condition about hearing."""
    eventish = EVENT_TYPES | TASK_ROLES
    return ", ".join(i for i in top_level_items(hed) if not set(shorts(i, known)) <= eventish)


def conditions(task: TaskInventory, annotations: dict[str, Mapping[str, str] | str], roles: Mapping[str, str],
               known: Names, defs: Definitions) -> list[str]:
    """Each condition column's levels become ``Def/...`` of ``Condition-variable`` definitions; the factors."""
    factors = []
    for column, role in roles.items():
        levels = annotations.get(column)
        if role != CONDITION or not isinstance(levels, Mapping):
            continue
        valued = parametric(levels)  # LOAD-2, LOAD-4: the stem is the factor, the number its value
        factor = stem_name(next(iter(valued.values()))[0]) if valued else def_name(cues.words(column))
        new = {}
        for level, hed in levels.items():
            said = cues.words(level)
            generic = not said or all(cues.NUMBER.match(w) for w in said) or len("".join(said)) <= 2
            name = def_name(cues.words(column, level) if generic else said)
            body = _without_types(hed, known)
            if level in valued:
                body = ", ".join(b for b in (body, f"Parameter-value/{valued[level][1]}") if b)
            name = defs.add(name, f"Condition-variable/{factor}" + (f", {body}" if body else ""))
            new[level] = f"Def/{name}"
        annotations[column] = new
        factors.append(factor)
    return factors


def lasting(task: TaskInventory, annotations: dict[str, Mapping[str, str] | str], roles: Mapping[str, str],
            known: Names, defs: Definitions, modality: str, read: Callable[[str], str]) -> set[tuple[str, str]]:
    """Start/end level pairs of event columns become ``(Def/X, Onset)`` / ``(Def/X, Offset)`` (:mod:`.lasting`),
    the definition holding what the lab's legend says of the thing where it names it; the levels changed."""
    changed: set[tuple[str, str]] = set()
    legend = task.legend()
    for column, role in roles.items():
        levels = annotations.get(column)
        if role != EVENT or not isinstance(levels, Mapping):
            continue
        new = dict(levels)
        for pair in pairs({level: _level_words(task, column, level) for level in levels}):
            named, content = content_of(pair, levels[pair.start], legend, read, known, modality)
            name = defs.add(def_name(cues.words(named) if named else list(pair.words)), content)
            new[pair.start], new[pair.end] = f"(Def/{name}, Onset)", f"(Def/{name}, Offset)"
            changed |= {(column, pair.start), (column, pair.end)}
        annotations[column] = new
    return changed


def repeated_content(annotations: dict[str, Mapping[str, str] | str], roles: Mapping[str, str], known: Names,
                     defs: Definitions, min_levels: int = 3) -> list[str]:
    """A group that stands, the same, in the event of *min_levels* or more levels of an event column becomes a
    definition, as a curator writes content shared by several events (a display, a response device); the
    definitions made."""
    made = []
    for column, role in roles.items():
        levels = annotations.get(column)
        if role != EVENT or not isinstance(levels, Mapping) or len(levels) < min_levels:
            continue
        counts: dict[str, int] = {}
        for hed in levels.values():
            for group in event_groups(hed, known)[:1]:
                for item in set(top_level_items(inside(group))):
                    if (is_group(item) and "{" not in item and "def/" not in item.lower()
                            and len(shorts(item, known)) > 1):
                        counts[item] = counts.get(item, 0) + 1
        shared = [item for item, n in counts.items() if n >= min_levels]
        if not shared:
            continue
        new = dict(levels)
        for item in shared:
            name = defs.add(def_name([w for t in shorts(item, known) for w in t.split("-")], limit=8), inside(item))
            made.append(name)
            for level, hed in new.items():
                groups = event_groups(hed, known)
                if groups and item in top_level_items(inside(groups[0])):
                    first = groups[0]
                    items = [f"Def/{name}" if i == item else i for i in top_level_items(inside(first))]
                    new[level] = hed.replace(first, "(" + ", ".join(items) + ")", 1)
        annotations[column] = new
    return made
