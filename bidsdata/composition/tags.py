"""HED strings as the composer reads them: top-level items, groups, and which tags name what.

Names are looked up in the schema once per version (:func:`names`); strings are handled as text so that
``{column}`` references and ``#`` placeholders pass through untouched.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from agents import conventions
from agents.hedstring import tag_tokens, top_level_items
from bidsdata.schemas import load_schema, version_key

# What hedtools' EventsChecker asks of an event, lower case as the composer compares short names (Experiment-procedure
# is an event type it does not recognise).
EVENT_TYPES = conventions.lower(conventions.EVENT_TYPES)
NON_TASK_EVENTS = conventions.lower(conventions.NON_TASK_EVENTS)
TASK_ROLES = conventions.lower(conventions.TASK_ROLES)
ACTION_ROLES = conventions.lower(conventions.ACTION_ROLES)
STIMULUS_ROLES = conventions.lower(conventions.STIMULUS_ROLES)


@dataclass(frozen=True)
class Names:
    """Short names (lower case) of the schema's tags, and of those under Action and Sensory-presentation."""

    long: dict[str, str]
    actions: frozenset[str]
    modalities: frozenset[str]


@functools.cache
def _names(key: tuple[str, ...]) -> Names:
    schema = load_schema(list(key) if len(key) > 1 else key[0])
    if not hasattr(schema, "tags"):
        schema = schema.schema_for_namespace("") or load_schema(None)
    long = {e.short_tag_name.lower(): e.long_tag_name for e in schema.tags.values() if not e.name.endswith("#")}
    return Names(long=long,
                 actions=frozenset(k for k, v in long.items() if v.startswith("Action/")),
                 modalities=frozenset(k for k, v in long.items() if "/Sensory-presentation/" in v))


def names(version: str | list[str] | None) -> Names:
    return _names(version_key(version))


def short_tag(token: str, known: Names) -> str:
    """The schema tag a written tag names (lower case): ``Event/Sensory-event`` -> ``sensory-event``,
    ``Label/Famous`` -> ``label``; the first word when the schema does not know it."""
    parts = [p.strip() for p in token.split("/")]
    for i in range(len(parts) - 1, -1, -1):
        name = parts[i].lower()
        long = known.long.get(name)
        if long and long.lower().endswith("/".join(parts[: i + 1]).lower()):
            return name
    return parts[0].lower()


def shorts(hed: str, known: Names) -> list[str]:
    return [short_tag(t, known) for t in tag_tokens(hed) if not t.startswith("{")]


def is_group(item: str) -> bool:
    return item.startswith("(") and item.endswith(")") and len(top_level_items(item)) == 1


def inside(item: str) -> str:
    return item[1:-1].strip() if is_group(item) else item


def event_types(hed: str, known: Names) -> list[str]:
    return [s for s in shorts(hed, known) if s in EVENT_TYPES]


def has_event(hed: str, known: Names) -> bool:
    return bool(event_types(hed, known))
