"""Level codes that cross the factors of a design: each position of the code is a factor, each token a level.

Labs often name a trial type by joining one short token per factor (``lo_fast``, ``lo_slow``, ``hi_fast``,
``hi_slow``): the name holds the design, and levels annotated alone, which rarely read the tokens, say the
same of all four. Where a column's codes split by one separator into the same number of positions, two or
more positions take several tokens, and the codes cover at least half of the crossings, each varying
position becomes a factor and each of its tokens a ``Condition-variable`` definition; every level then
holds the ``Def`` of each of its tokens, so levels differ by what they mean (their sets of conditions),
not by their names. A token is read through the task's glossary (``lo`` -> "low" where the task says
"low"), and what the offline annotator makes of the word joins the definition; a token nothing reads
still names its place in the design, and the level keeps its question for the lab (asked for every
undescribed level).

One position may name the event's place in the trial instead (``lo_cue``, ``lo_resp``, ``hi_cue``): tokens
that are mostly words of a task role or event (a cue, a stimulus, a response, feedback), naming two roles
or more. A curator reads such a position as the event's role, not as a condition: each level's event then
takes the event type and task role its token names, and only the other positions become factors.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import prod

from agents.conventions import ABBREVIATIONS, CUE, FEEDBACK, INSTRUCTION, RESPONSE, said
from bidsdata.composition import cues
from bidsdata.composition.definitions import Definitions, def_name
from bidsdata.composition.distinct import add_items, meaning_items
from bidsdata.composition.events import complete_event, event_groups, event_type_for
from bidsdata.composition.roles import EVENT, MODIFIER
from bidsdata.composition.tags import (
    ACTION_ROLES,
    EVENT_TYPES,
    STIMULUS_ROLES,
    TASK_ROLES,
    Names,
    inside,
    short_tag,
    top_level_items,
)
from bidsdata.glossary import Glossary
from bidsdata.schemas import validate_hed_string

logger = logging.getLogger(__name__)

SEPARATORS = ("_", "-", ".")
MIN_LEVELS = 4
"""Fewer codes cross too few factors to tell a design from a coincidence of names."""
MIN_WORD = 3
MIN_COVER = 0.5
"""Share of the crossings of the factors' tokens the codes must cover."""
ROLE_WORDS = CUE | FEEDBACK | INSTRUCTION | RESPONSE | frozenset(
    r.rsplit("-", 1)[-1] for r in TASK_ROLES if r != "task-activity")
"""Words that name an event's role in the task: the word lists of cues, feedback, instructions and
responses, and the last word of each task role hedtools knows ("stimulus" of Experimental-stimulus).
Task-activity is left out: it is the role of an event nothing else names."""
MIN_ROLES = 2
"""Tokens that all name one role (correct / incorrect feedback) vary within that role: a condition."""


@dataclass(frozen=True)
class Design:
    """How a column's codes cross factors: the code of each level split into tokens, and the factor positions."""

    separator: str
    tokens: dict[str, tuple[str, ...]]
    """level -> its tokens (as written), for the levels that follow the design."""
    positions: tuple[int, ...]
    """The positions whose tokens vary: the factors."""


def _split(level: str, separator: str) -> tuple[str, ...] | None:
    parts = tuple(level.strip().split(separator))
    return parts if len(parts) >= 2 and all(p.isalnum() for p in parts) else None


def _design(levels: list[str], separator: str) -> Design | None:
    split = {lv: parts for lv in levels if (parts := _split(lv, separator))}
    if not split:
        return None
    width = Counter(len(p) for p in split.values()).most_common(1)[0][0]
    # Levels of another shape (a filler code beside the design) stay out of it, as long as most levels fit.
    tokens = {lv: parts for lv, parts in split.items() if len(parts) == width}
    if len(tokens) < MIN_LEVELS or 2 * len(tokens) < len(levels):
        return None
    lowered = [tuple(t.lower() for t in parts) for parts in tokens.values()]
    values = [{parts[i] for parts in lowered} for i in range(width)]
    positions = tuple(i for i, seen in enumerate(values) if len(seen) >= 2)
    if len(positions) < 2:
        return None  # one varying position names levels; it crosses nothing
    combos = {tuple(parts[i] for i in positions) for parts in lowered}
    if len(combos) < len(tokens) or len(combos) < MIN_COVER * prod(len(values[i]) for i in positions):
        return None
    return Design(separator, tokens, positions)


def design(levels: Iterable[str]) -> Design | None:
    """The factorial design *levels*' codes follow, if any: the separator that fits the most levels."""
    levels = list(levels)
    found = [d for sep in SEPARATORS if (d := _design(levels, sep))]
    return max(found, key=lambda d: len(d.tokens)) if found else None


def _token_words(token: str, glossary: Glossary | None) -> list[str]:
    """What a token says: the task's word it abbreviates, else a general abbreviation (``resp``), else itself."""
    read = glossary.expand(token) if glossary else None
    return cues.words(read or ABBREVIATIONS.get(token.lower(), token))


def _task_role(text_words: list[str]) -> str | None:
    """The task role *text_words* name, None where they name no role or event."""
    if not said(text_words, ROLE_WORDS):
        return None
    if event_type_for(text_words)[0] == "Agent-action":
        return "Participant-response"
    return cues.stimulus_role(text_words)


def role_position(found: Design, glossary: Glossary | None) -> tuple[int, dict[str, list[str]]] | None:
    """The position of *found* whose tokens name the event's role in the trial, if one does, with the words of
    each of its tokens (lower case) that names a role: most of its tokens name one, and not all the same."""
    best: tuple[float, int, dict[str, list[str]]] | None = None
    for i in found.positions:
        tokens = {parts[i].lower() for parts in found.tokens.values()}
        read = {t: w for t in tokens if _task_role(w := _token_words(t, glossary))}
        share = len(read) / len(tokens)
        if 2 * len(read) > len(tokens) and len({_task_role(w) for w in read.values()}) >= MIN_ROLES \
                and (best is None or share > best[0]):
            best = (share, i, read)
    return (best[1], best[2]) if best else None


def with_role(hed: str, text_words: list[str], known: Names) -> str:
    """*hed* with its first event taking the event type and task role *text_words* name; what the event says
    besides stays, except what only fits the event type it had (a modality for an action, an action for
    something sensed)."""
    groups = event_groups(hed, known)
    if not groups:
        return hed
    first = groups[0]
    items = top_level_items(inside(first))
    action = event_type_for(text_words)[0] == "Agent-action"
    wrong = (known.modalities | {"sensory-presentation"} | STIMULUS_ROLES) if action else (known.actions | ACTION_ROLES)
    kept = [i for i in items if short_tag(i, known) not in EVENT_TYPES | TASK_ROLES | wrong]
    modality = next((i for i in items if short_tag(i, known) in known.modalities), "Visual-presentation")
    return hed.replace(first, complete_event(", ".join(kept), text_words, known, modality), 1)


def _event_roles(column: str, levels: Mapping[str, str], glossary: Glossary | None,
                 known: Names) -> tuple[dict[str, str], tuple[int, frozenset[str]] | None]:
    """An event column's levels with the roles its codes' role position names, and that position with its
    tokens that name a role (None where no position names roles)."""
    found = design(levels)
    placed = role_position(found, glossary) if found else None
    if found is None or placed is None:
        return dict(levels), None
    position, read = placed
    out = dict(levels)
    for level, parts in found.tokens.items():
        if parts[position].lower() in read:
            out[level] = with_role(levels[level], read[parts[position].lower()], known)
    logger.info("column %s: code position %d names the events' roles (%s)", column, position + 1,
                ", ".join(sorted(read)))
    return out, (position, frozenset(read))


def _body(factor: str, words: list[str], known: Names, version: str | list[str] | None) -> str:
    """The definition's content: the factor, and what the token's words mean where that stays valid."""
    body = f"Condition-variable/{factor}"
    for item in meaning_items(words, known, version) if words else []:
        if not validate_hed_string(f"{body}, {item}", version):
            body = f"{body}, {item}"
    return body


def factor_defs(column: str, levels: Iterable[str], glossary: Glossary | None, known: Names,
                version: str | list[str] | None, defs: Definitions,
                skip: tuple[int, frozenset[str]] | None = None) -> tuple[dict[str, list[str]], list[str]]:
    """level -> the ``Def/...`` of each of its tokens, and the factors made, for a column whose codes cross
    factors (nothing where they do not). The definitions go to *defs*; the tokens *skip* names at its
    position (they name roles) get none, while that position's other tokens keep theirs, so that the levels
    they name stay apart by meaning."""
    found = design(levels)
    if found is None:
        return {}, []
    at, skipped = skip if skip else (-1, frozenset())
    positions = list(found.positions)
    values = {i: {parts[i].lower() for parts in found.tokens.values()} for i in positions}
    for i, j in [(i, j) for i in positions for j in positions if i < j and values[i] == values[j]]:
        # Kept as two factors (the codes cross them), but the same tokens in two places is rarely a design.
        logger.warning("column %s: code positions %d and %d take the same tokens", column, i + 1, j + 1)
    column_words = cues.words(column) or ["level"]
    made: dict[tuple[int, str], str] = {}
    factors = []
    for i in positions:
        if i == at and not {parts[i].lower() for parts in found.tokens.values()} - skipped:
            continue  # every token of the position names a role: no factor
        factor = def_name([*column_words, str(i + 1)], limit=8)
        factors.append(factor)
        for token in sorted({parts[i] for parts in found.tokens.values()}, key=str.lower):
            if (i, token.lower()) in made or (i == at and token.lower() in skipped):
                continue
            read = glossary.expand(token) if glossary else None
            words = cues.words(read or token)
            # A short token nothing reads is no word: the annotator would take it for whatever tag it spells.
            meant = words if read or (len(token) >= MIN_WORD and token.isalpha()) else []
            name = defs.add(def_name([*column_words, str(i + 1), *(words or [token])], limit=10),
                            _body(factor, meant, known, version))
            made[(i, token.lower())] = name
    out = {lv: [f"Def/{made[(i, parts[i].lower())]}" for i in positions if (i, parts[i].lower()) in made]
           for lv, parts in found.tokens.items()}
    logger.info("column %s: codes cross %d factors over %d levels", column, len(factors), len(out))
    return out, factors


def cross_factors(chosen: dict[str, Mapping[str, str] | str], roles: Mapping[str, str], glossary: Glossary | None,
                  known: Names, version: str | list[str] | None, defs: Definitions) -> list[str]:
    """Every event or modifier column whose codes cross factors gets the Defs of its levels' tokens (in the
    level's event group for an event column, beside the rest for a modifier); the factors made. An event
    column's position that names the events' roles gives roles instead."""
    factors = []
    for column, role in roles.items():
        levels = chosen.get(column)
        if role not in (EVENT, MODIFIER) or not isinstance(levels, Mapping):
            continue
        skip = None
        if role == EVENT:
            levels, skip = _event_roles(column, levels, glossary, known)
            chosen[column] = levels
        crossed, made = factor_defs(column, levels, glossary, known, version, defs, skip)
        if crossed:
            chosen[column] = {lv: add_items(h, crossed[lv], known, role == EVENT) if lv in crossed else h
                              for lv, h in levels.items()}
            factors += made
    return factors


__all__ = ["ROLE_WORDS", "Design", "cross_factors", "design", "factor_defs", "role_position", "with_role"]
