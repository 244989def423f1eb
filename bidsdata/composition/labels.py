"""Levels told apart by their names only, and what a code column's levels mean by the conditions they fall in.

Two readings of the rows the passes of :mod:`.passes` ask for when levels are labelled: which conditions
every row of a level is in (a code means those conditions), and which columns are left saying the same of
every level once their Labels are set aside.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bidsdata.assembly import DroppedTags
from bidsdata.composition.nesting import STRAY_SHARE
from bidsdata.composition.roles import CONDITION, EVENT, MODIFIER
from bidsdata.composition.rows import NA
from bidsdata.composition.state import Draft
from bidsdata.composition.tags import has_event


def implied_conditions(column: str, draft: Draft) -> dict[str, list[str]]:
    """level -> the condition levels (as their ``Def/...``) that every row of the level is in.

    A code column beside factor columns (code 6 on every "famous face, immediate repeat" row) means
    those conditions; saying so tells codes apart by what they mean rather than by their names."""
    chosen = draft.chosen
    # A factor nested into the same event says it there already: repeated in one group, hedtools refuses it.
    factors = [c for c in draft.columns(CONDITION) if isinstance(chosen.get(c), Mapping) and c not in draft.nested]
    found: dict[str, dict[str, set[str]]] = {}
    for row in draft.rows.all():
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


def named_only(draft: Draft) -> list[DroppedTags]:
    """Columns besides the main event column whose levels are told apart only by their names lose their HED.

    Without their Labels, such levels all say the same thing (``Correct-action`` for both codes 0 and 1 of a
    column) and a Label adds a name, not a meaning: the column's HED would say something false of some of its
    rows. It is left out, each level with a note asking what sets it apart. An event column is left out only
    where every row it has a value in gets its event from the main event column (or its levels hold no event
    type), so no row loses its event."""
    named: dict[str, set[str]] = {}
    for column, level in draft.labelled:
        named.setdefault(column, set()).add(level)
    notes = []
    for column, levels in named.items():
        if not _said_by_name_only(draft, column, levels):
            continue
        del draft.chosen[column]
        draft.labelled[:] = [(c, lv) for c, lv in draft.labelled if c != column]
        notes += [DroppedTags(column, level, (), reason=(
            "its levels are told apart only by their names, so their HED said the same of every level: "
            "describe what each level of the column means"))
            for level in sorted(levels)]
    return notes


def _said_by_name_only(draft: Draft, column: str, levels: set[str]) -> bool:
    """Whether *column* (not the main event column) has every level labelled and says the same of each, and
    leaving it out takes no row's event away."""
    given = draft.chosen.get(column)
    if column == draft.main or draft.roles.get(column) not in (EVENT, MODIFIER) or not isinstance(given, Mapping):
        return False
    if set(given) - levels or len(given) < 2 or len({_unnamed(h) for h in given.values()}) > 1:
        return False
    return not (draft.roles[column] == EVENT and any(has_event(h, draft.known) for h in given.values())
                and not _covered(column, draft))


def _unnamed(hed: str) -> str:
    """*hed* without its Labels, for comparing what levels say."""
    return re.sub(r"\s+", "", re.sub(r"Label/[^,()]*", "", hed)).replace(",,", ",").strip(",")


def _covered(column: str, draft: Draft) -> bool:
    """Every row with a value in *column* (but a stray few, :data:`.nesting.STRAY_SHARE`: rows logged without
    their event's type) has a level of the main event column with HED."""
    main = draft.main
    levels = draft.chosen.get(main) if main else None
    if not isinstance(levels, Mapping):
        return False
    held = [bool(levels.get(row.get(main) or "")) for row in draft.rows.all() if row.get(column) not in NA]
    return held.count(False) <= STRAY_SHARE * len(held)
