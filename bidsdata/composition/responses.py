"""Columns that describe the participant's response go into the response, where a response time puts it.

A trial row often carries the stimulus (its onset), a response time (``(Delay/# s, (Agent-action, ...))``: the
response happens that long after the onset) and columns saying which key was pressed or whether the answer was
right. Annotated alone, each such column is an ``Agent-action`` of its own at the stimulus onset: three presses
where the participant made one, at the wrong time. A curator writes them into the delayed response instead:
``(Delay/# s, (Agent-action, Participant-response, Press, {key}, {accuracy}))``, so hedtools moves them with it.

A column goes there only where that is true of every row: each of its levels tells of the response (an
``Agent-action`` and nothing presented, or an action's outcome such as ``Correct-action``), and every row giving
it a value has a response time (but a stray few) to carry it; a row without one would lose what the column says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agents import conventions
from bidsdata import tsv
from bidsdata.assembly import without_event_types
from bidsdata.composition.distinct import key
from bidsdata.composition.events import event_groups
from bidsdata.composition.nesting import STRAY_SHARE, referable, without_reference
from bidsdata.composition.roles import EVENT, MODIFIER, VALUE
from bidsdata.composition.rows import EventRows
from bidsdata.composition.state import Draft
from bidsdata.composition.tags import Names, event_types, inside, is_group, shorts, top_level_items

_DELAY = re.compile(r"^Delay/#(\s+\w+)?$")
_ACTING = {"agent-action"}
_OUTCOMES = {r.lower() for r in conventions.ACTION_ROLES}
_RESPONSE_ROLE = "participant-response"


def response_delay(chosen: Mapping[str, object], roles: Mapping[str, str], known: Names) -> tuple[str, str] | None:
    """The value column whose template delays an action (a response time), with the items of that action's
    group, or None (none, or several: which response would a column belong to?)."""
    found = []
    for column, given in chosen.items():
        if roles.get(column) != VALUE or not isinstance(given, str) or not referable(column):
            continue
        items = top_level_items(given)
        if len(items) != 1 or not is_group(items[0]):
            continue
        parts = top_level_items(inside(items[0]))
        if len(parts) == 2 and _DELAY.match(parts[0]) and is_group(parts[1]) \
                and set(event_types(parts[1], known)) == _ACTING:
            found.append((column, parts[1]))
    return found[0] if len(found) == 1 else None


def tells_of_the_response(levels: Mapping[str, str], known: Names) -> bool:
    """Every level with HED is about an action done, never a presentation: an ``Agent-action`` (and no other
    event type) or, with no event type, an action or an action's outcome."""
    said = [h for h in levels.values() if h.strip()]
    if not said:
        return False
    for hed in said:
        types = set(event_types(hed, known))
        tags = set(shorts(hed, known))
        if types - _ACTING or (not types and not tags & (_OUTCOMES | known.actions)):
            return False
    return True


def carried_by(column: str, delay: str, rows: EventRows) -> bool:
    """Every row with a value in *column* has a response time too (but a stray few)."""
    given = [not tsv.is_na(row.get(delay)) for row in rows.all() if not tsv.is_na(row.get(column))]
    return bool(given) and given.count(False) <= STRAY_SHARE * len(given)


def _inner(hed: str, response: set[tuple[str, ...]], known: Names, version: object) -> str:
    """A level's HED as items of the response: no event type, no role or item the response (or a column moved
    into it before) already has."""
    bare, _ = without_event_types(hed, version)  # type: ignore[arg-type]
    items, original = top_level_items(bare), top_level_items(hed)
    if len(items) == 1 and is_group(items[0]) and len(original) == 1 and (
            event_types(original[0], known) or any(key(i, known) == (_RESPONSE_ROLE,)
                                                   for i in top_level_items(inside(items[0])))):
        items = top_level_items(inside(items[0]))  # the level's own event group, opened into the response's
    return ", ".join(dict.fromkeys(i for i in items if key(i, known) not in response
                                   and key(i, known) != (_RESPONSE_ROLE,)))


def into_response(draft: Draft) -> list[str]:
    """Event and modifier columns telling of the response, moved into the response time's delayed action
    (changed in place); the columns moved."""
    found = response_delay(draft.chosen, draft.roles, draft.known)
    if found is None:
        return []
    delay, action = found
    _said_twice(draft, delay, action)
    # hedtools checks each reference with every level of the referenced column, all combinations at once: an
    # item two moved columns could both put into the response is said once (by the first).
    seen = {key(i, draft.known) for i in top_level_items(inside(action))}
    # Where the rows' own event is an action (each row a hand raised...), the columns nested into it describe
    # that action, and stay.
    acting = _main_acts(draft)
    moved = []
    for column, role in list(draft.roles.items()):
        levels = draft.chosen.get(column)
        if (role not in (EVENT, MODIFIER) or column == draft.main or not isinstance(levels, Mapping)
                or (acting and column in draft.nested) or not referable(column)
                or not tells_of_the_response(levels, draft.known) or not carried_by(column, delay, draft.rows)):
            continue
        inner = {lv: _inner(h, seen, draft.known, draft.version) for lv, h in levels.items()}
        draft.chosen[column] = inner
        seen |= {key(i, draft.known) for h in inner.values() for i in top_level_items(h)}
        draft.roles[column] = MODIFIER
        moved.append(column)
    if not moved:
        return []
    refs = ", ".join(f"{{{c}}}" for c in moved)
    template = str(draft.chosen[delay])
    draft.chosen[delay] = template.replace(action, action[:-1] + ", " + refs + ")", 1)
    for column in moved:
        _unreference(draft.chosen, column)
    return moved


def _main_acts(draft: Draft) -> bool:
    """Whether the main event column's events are actions: most levels' first event group an ``Agent-action``."""
    levels = draft.chosen.get(draft.main) if draft.main else None
    if not isinstance(levels, Mapping):
        return False
    firsts = [groups[0] for groups in (event_groups(h, draft.known) for h in levels.values()) if groups]
    return sum(set(event_types(g, draft.known)) == _ACTING for g in firsts) * 2 > len(firsts)


def _said_twice(draft: Draft, delay: str, action: str) -> None:
    """An event level's own response group ("a face is shown and the participant responds") is left out where
    every row of the level has a response time: it is the response the delayed action already tells of, at its
    own time rather than at the stimulus onset. Only a group saying nothing more than that action goes."""
    response = {key(i, draft.known) for i in top_level_items(inside(action))}
    for column in draft.columns(EVENT):
        levels = draft.chosen.get(column)
        if not isinstance(levels, Mapping):
            continue
        timed = _timed_levels(column, delay, draft.rows)
        new = dict(levels)
        for level, hed in levels.items():
            groups = event_groups(hed, draft.known)
            if level not in timed or len(groups) < 2:
                continue
            same = [g for g in groups if set(event_types(g, draft.known)) == _ACTING
                    and {key(i, draft.known) for i in top_level_items(inside(g))} <= response]
            if same:
                new[level] = ", ".join(i for i in top_level_items(hed) if i not in same)
        draft.chosen[column] = new


def _timed_levels(column: str, delay: str, rows: EventRows) -> set[str]:
    """Levels of *column* whose rows all have a response time (but a stray few)."""
    seen: dict[str, list[bool]] = {}
    for row in rows.all():
        level = row.get(column)
        if not tsv.is_na(level):
            seen.setdefault(level, []).append(not tsv.is_na(row.get(delay)))
    return {lv for lv, timed in seen.items() if timed.count(False) <= STRAY_SHARE * len(timed)}


def _unreference(chosen: dict[str, object], column: str) -> None:
    """*column*'s ``{column}`` taken out of the other columns' levels (it was nested into the stimulus)."""
    for other, levels in chosen.items():
        if other != column and isinstance(levels, Mapping):
            chosen[other] = {level: without_reference(hed, column) for level, hed in levels.items()}
