"""Each event a level gives, in its own group with what hedtools' EventsChecker asks of an event.

An event has one event type; a task event has a task role; a sensory event says how it is presented; an
agent action says what is done. A level annotated alone often lacks one of these or opens two events where
one is meant; here each event becomes one group, completed from the words of the level's name and
description (:mod:`.cues`), so that rows at one onset (which hedtools merges into one event string) and the
columns nested into an event stay apart.
"""

from __future__ import annotations

import re

from agents.conventions import CONTROL, STRUCTURE, said
from bidsdata.composition import cues
from bidsdata.composition.tags import (
    ACTION_ROLES,
    EVENT_TYPES,
    NON_TASK_EVENTS,
    STIMULUS_ROLES,
    TASK_ROLES,
    Names,
    has_event,
    inside,
    is_group,
    short_tag,
    shorts,
    top_level_items,
)

_PROCEDURE = re.compile(r"\b(Event/)?Experiment-procedure\b", re.IGNORECASE)


def event_type_for(text_words: list[str]) -> list[str]:
    """The event type (and role) the words of a level without one point to."""
    if said(text_words, CONTROL) and not cues.is_response(text_words):
        return ["Experiment-control"]
    if cues.is_response(text_words):
        return ["Agent-action", "Participant-response"]
    if said(text_words, STRUCTURE) and not cues.senses(text_words):
        return ["Experiment-structure"]  # a trial or block of the design, nothing presented
    return ["Sensory-event"]


def _completed(items: list[str], text_words: list[str], known: Names, modality: str) -> str:
    """One event's items (one event type among them, at top level) with role, modality and action added."""
    present = set(shorts(", ".join(items), known))
    kind = next(s for s in shorts(", ".join(items), known) if s in EVENT_TYPES)
    added: list[str] = []
    if kind not in NON_TASK_EVENTS and not present & TASK_ROLES \
            and not (kind == "agent-action" and present & ACTION_ROLES) \
            and not (kind == "sensory-event" and present & STIMULUS_ROLES):
        added.append({"sensory-event": cues.stimulus_role(text_words), "agent-action": "Participant-response"}
                     .get(kind, "Task-activity"))
    if kind == "sensory-event" and not present & (known.modalities | {"sensory-presentation"}):
        added.append(cues.modality(text_words, modality))
    if kind == "agent-action" and not present & known.actions and "action" not in present:
        added.append(cues.action(text_words))
    return "(" + ", ".join(items + added) + ")"


_TEMPORAL = re.compile(r"^\(\s*(Duration|Delay)/[^,()]+", re.IGNORECASE)


def untimed(hed: str) -> str:
    """A level's HED with each time group replaced by its content (``(Duration/1 s, (X))`` -> ``X``).

    hedtools wants a time tag alone with one group in a top-level group, so inside an event group (where the
    composer puts a level's items, and the levels of the columns nested into it) it is refused, and the whole
    column would fall back to the levels' own HED. How long an event lasts and when it starts are the events
    file's ``duration`` and ``onset``; what the group says happens is kept, in the event."""
    def loose(item: str) -> bool:
        return is_group(item) and bool(_TEMPORAL.match(item))

    items = top_level_items(hed)
    if not any(loose(i) for i in items):
        return hed
    out: list[str] = []
    for item in items:
        if not loose(item):
            out.append(item)
            continue
        for part in top_level_items(inside(item))[1:]:
            out += top_level_items(inside(part)) if is_group(part) else [part]
    return ", ".join(dict.fromkeys(out))  # a repeated tag is refused too


def complete_event(hed: str, text_words: list[str], known: Names, modality: str = "Visual-presentation") -> str:
    """*hed* as one group per event, each with an event type, a task role, and a modality or an action.

    Items that belong to no event join the first event. A level that names no event type gets the one its
    words point to (a response, a control marker, else a sensory event)."""
    hed = _PROCEDURE.sub("Experiment-control", hed)
    items = top_level_items(hed)
    # A time group holding an event of its own (a later event) stays beside this one, as written.
    later = [i for i in items if is_group(i) and _TEMPORAL.match(i)]
    if later:
        rest = [i for i in items if i not in later]
        own = complete_event(", ".join(rest), text_words, known, modality) if rest else ""
        return ", ".join(x for x in [own, *later] if x)
    if not has_event(hed, known):
        if len(items) == 1 and is_group(items[0]):
            items = top_level_items(inside(items[0]))
        present = set(shorts(", ".join(items), known))
        # A role the level already names ("Participant-response") is not added twice: hedtools refuses a repeat.
        items = [t for t in event_type_for(text_words) if t.lower() not in present] + items
    flat_types = [i for i in items if not i.startswith("(") and short_tag(i, known) in EVENT_TYPES]
    if flat_types:
        nested = [i for i in items if i.startswith("(") and has_event(i, known)]
        own = [i for i in items if i not in nested and (i not in flat_types or i == flat_types[0])]
        events = [_completed(own, text_words, known, modality)]
        events += [complete_event(inside(g), text_words, known, modality) for g in nested]
        return ", ".join(events)
    groups = [i for i in items if has_event(i, known)]
    rest = [i for i in items if not has_event(i, known)]
    events = [complete_event(inside(g) if is_group(g) else g, text_words, known, modality) for g in groups]
    if rest:
        first = events[0]
        head = top_level_items(first)[0]
        events[0] = head[:-1] + ", " + ", ".join(rest) + ")" + first[len(head):]
    return ", ".join(events)


def event_groups(hed: str, known: Names) -> list[str]:
    """The top-level groups of a completed level that hold an event type (Onset/Offset groups excluded, and a
    later event's Delay group: hedtools makes it an event of its own)."""
    return [i for i in top_level_items(hed) if is_group(i) and has_event(i, known) and not _TEMPORAL.match(i)]


def one_event(hed: str, known: Names) -> str:
    """A completed level with several event groups as one event: the first, holding the others without their
    event types. For rows where another column's group stands beside the event at top level: with several
    events in a row, hedtools asks each top-level group for an event type of its own."""
    groups = event_groups(hed, known)
    if len(groups) < 2:
        return hed
    rest = []
    for group in groups[1:]:
        kept = [i for i in top_level_items(inside(group)) if short_tag(i, known) not in EVENT_TYPES]
        if kept:
            rest.append("(" + ", ".join(kept) + ")")
    others = [i for i in top_level_items(hed) if i not in groups]
    first = groups[0]
    merged = first[:-1] + "".join(", " + r for r in rest) + ")"
    return ", ".join([merged, *others])
