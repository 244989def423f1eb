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
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import prod

from bidsdata.composition import cues
from bidsdata.composition.definitions import Definitions, def_name
from bidsdata.composition.distinct import add_items, meaning_items
from bidsdata.composition.roles import EVENT, MODIFIER
from bidsdata.composition.tags import Names
from bidsdata.glossary import Glossary
from bidsdata.schemas import validate_hed_string

logger = logging.getLogger(__name__)

SEPARATORS = ("_", "-", ".")
MIN_LEVELS = 4
"""Fewer codes cross too few factors to tell a design from a coincidence of names."""
MIN_WORD = 3
MIN_COVER = 0.5
"""Share of the crossings of the factors' tokens the codes must cover."""


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


def _body(factor: str, words: list[str], known: Names, version: str | list[str] | None) -> str:
    """The definition's content: the factor, and what the token's words mean where that stays valid."""
    body = f"Condition-variable/{factor}"
    for item in meaning_items(words, known, version) if words else []:
        if not validate_hed_string(f"{body}, {item}", version):
            body = f"{body}, {item}"
    return body


def factor_defs(column: str, levels: Iterable[str], glossary: Glossary | None, known: Names,
                version: str | list[str] | None, defs: Definitions) -> tuple[dict[str, list[str]], list[str]]:
    """level -> the ``Def/...`` of each of its tokens, and the factors made, for a column whose codes cross
    factors (nothing where they do not). The definitions go to *defs*."""
    found = design(levels)
    if found is None:
        return {}, []
    column_words = cues.words(column) or ["level"]
    made: dict[tuple[int, str], str] = {}
    factors = []
    for i in found.positions:
        factor = def_name([*column_words, str(i + 1)], limit=8)
        factors.append(factor)
        for token in sorted({parts[i] for parts in found.tokens.values()}, key=str.lower):
            if (i, token.lower()) in made:
                continue
            read = glossary.expand(token) if glossary else None
            words = cues.words(read or token)
            # A short token nothing reads is no word: the annotator would take it for whatever tag it spells.
            meant = words if read or (len(token) >= MIN_WORD and token.isalpha()) else []
            name = defs.add(def_name([*column_words, str(i + 1), *(words or [token])], limit=10),
                            _body(factor, meant, known, version))
            made[(i, token.lower())] = name
    out = {lv: [f"Def/{made[(i, parts[i].lower())]}" for i in found.positions] for lv, parts in found.tokens.items()}
    logger.info("column %s: codes cross %d factors over %d levels", column, len(factors), len(out))
    return out, factors


def cross_factors(chosen: dict[str, Mapping[str, str] | str], roles: Mapping[str, str], glossary: Glossary | None,
                  known: Names, version: str | list[str] | None, defs: Definitions) -> list[str]:
    """Every event or modifier column whose codes cross factors gets the Defs of its levels' tokens (in the
    level's event group for an event column, beside the rest for a modifier); the factors made."""
    factors = []
    for column, role in roles.items():
        levels = chosen.get(column)
        if role not in (EVENT, MODIFIER) or not isinstance(levels, Mapping):
            continue
        crossed, made = factor_defs(column, levels, glossary, known, version, defs)
        if crossed:
            chosen[column] = {lv: add_items(h, crossed[lv], known, role == EVENT) if lv in crossed else h
                              for lv, h in levels.items()}
            factors += made
    return factors


__all__ = ["Design", "cross_factors", "design", "factor_defs"]
