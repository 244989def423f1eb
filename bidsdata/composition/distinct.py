"""Two levels of one column never say the same thing unless their descriptions do.

Levels annotated alone often lose the word that sets them apart ("immediate" vs "delayed" repeat, pulse 1
vs pulse 2). Where levels of a column collide, the words each one's description has and the others' lack
are annotated on their own (the offline annotator, no event tags) and added to the level; where even that
says nothing new, a ``Label`` with the level's name keeps it apart and the collision is reported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agents.offline.annotator import annotate_offline
from bidsdata.composition import cues
from bidsdata.composition.events import event_groups
from bidsdata.composition.tags import (
    EVENT_TYPES,
    TASK_ROLES,
    Names,
    short_tag,
    shorts,
    top_level_items,
)

_LABEL = re.compile(r"[^A-Za-z0-9_-]+")
_NOT_DISTINCT = EVENT_TYPES | TASK_ROLES | {"experiment-participant", "computer-screen", "sensory-presentation"}


def key(hed: str, known: Names) -> tuple[str, ...]:
    return tuple(sorted(t.lower() for t in re.split(r"[(),]", hed.replace(" ", "")) if t))


def _extra(text_words: list[str], known: Names, version: str | list[str] | None) -> list[str]:
    if not text_words:
        return []
    try:
        hed = annotate_offline(" ".join(text_words), schema_version=version if isinstance(version, str) else
                               "8.4.0").annotation
    except Exception:
        return []
    items = []
    for item in top_level_items(hed):
        if short_tag(item, known) in _NOT_DISTINCT or short_tag(item, known) in known.modalities:
            continue
        if all(s in _NOT_DISTINCT or s in known.modalities for s in shorts(item, known)):
            continue
        items.append(item)
    return items


def _add(hed: str, items: list[str], known: Names, nested: bool) -> str:
    """*items* added to the level's first event group (event columns), else at top level."""
    groups = event_groups(hed, known) if nested else []
    if not groups:
        return ", ".join([hed, *items]) if hed else ", ".join(items)
    first = groups[0]
    return hed.replace(first, first[:-1] + ", " + ", ".join(items) + ")", 1)


def distinguish(levels: Mapping[str, str], texts: Mapping[str, list[str]], known: Names,
                version: str | list[str] | None, *, nested: bool,
                hints: Mapping[str, list[str]] | None = None, avoid: set[tuple[str, ...]] | None = None,
                label_prefix: str = "") -> tuple[dict[str, str], list[str]]:
    """*levels* (level -> HED) with colliding levels told apart; the levels that needed a Label.

    *hints* are items known to hold for a level (the conditions every one of its rows is in); they are
    tried first, then the words that set the level's description apart, then a Label. Items whose key is in
    *avoid* are never added (a nested column's items must not repeat its event's); *label_prefix* keeps the
    Labels of two nested columns apart."""
    avoid = avoid or set()
    out = dict(levels)
    labelled: list[str] = []
    for attempt in (0, 1):
        seen: dict[tuple[str, ...], list[str]] = {}
        for level, hed in out.items():
            seen.setdefault(key(hed, known), []).append(level)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            common = set.intersection(*(set(texts.get(lv, [])) for lv in group))
            for level in group:
                own = [w for w in texts.get(level, []) if w not in common]
                items = [] if attempt else [
                    i for i in (hints or {}).get(level, []) or _extra(own, known, version)
                    if key(i, known) and key(i, known) not in avoid
                    and not set(key(i, known)) <= set(key(out[level], known))]
                if items:
                    out[level] = _add(out[level], items, known, nested)
                elif attempt or not own:
                    name = _LABEL.sub("-", label_prefix + level).strip("-") or "level"
                    out[level] = _add(out[level], [f"Label/{name}"], known, nested)
                    labelled.append(level)
    return out, labelled


def level_texts(levels: Mapping[str, str], describe: Mapping[str, str]) -> dict[str, list[str]]:
    return {lv: cues.words(describe.get(lv) or lv) for lv in levels}
