"""Several events side by side: each event's annotation as top-level group(s) of its own.

HED keeps the events of one description apart in top-level groups, each with its event type;
Duration and Delay head a top-level group holding what lasts or waits that long.
"""

from __future__ import annotations

from agents.offline.event_kinds import EVENT_TYPES
from agents.offline.validity import Tree, parse, serialize

# Value tags that must head a top-level group.
TOP_LEVEL_VALUES = frozenset({"Duration", "Delay"})


def _event_types(tree: Tree) -> list[str]:
    return [el for el in tree if isinstance(el, str) and el in EVENT_TYPES]


def has_event(annotation: str) -> bool:
    """True if *annotation* holds an event type, at the top level or in a top-level group."""
    # A sentence that both presents something and acts holds its two events in groups of their own.
    return any(_event_types(el if isinstance(el, list) else [el]) for el in parse(annotation))


def _is_temporal(el: str | Tree) -> bool:
    return isinstance(el, list) and any(isinstance(t, str) and t.split("/")[0] in TOP_LEVEL_VALUES for t in el)


def dedupe(items: Tree) -> Tree:
    """*items* without repeats (compared as HED text, ignoring case), first kept."""
    seen: set[str] = set()
    out: Tree = []
    for el in items:
        key = serialize([el]).lower()
        if key not in seen:
            seen.add(key)
            out.append(el)
    return out


def event_group(annotation: str) -> list[str | Tree]:
    """One event's annotation as top-level group(s): (Event-type, ...), or (Duration/x, (Event-type, ...))."""
    tree = parse(annotation)
    if len(tree) > 1 and all(isinstance(el, list) and _event_types(el) for el in tree):
        return tree  # already one group per event
    temporal = [el for el in tree if _is_temporal(el)]
    rest = [el for el in tree if not _is_temporal(el)]
    if len(temporal) == 1:
        # Duration and Delay must head a top-level group: the whole event goes inside it.
        head = [t for t in temporal[0] if isinstance(t, str) and t.split("/")[0] in TOP_LEVEL_VALUES]
        inner: Tree = []
        for el in temporal[0]:
            if el not in head:
                inner.extend(el if isinstance(el, list) else [el])
        return [[*head, dedupe([*rest, *inner])]]
    return [dedupe(rest), *temporal] if rest else list(temporal)
