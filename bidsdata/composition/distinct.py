"""Two levels of one column never say the same thing unless their descriptions do.

Levels annotated alone often lose the word that sets them apart ("immediate" vs "delayed" repeat, pulse 1
vs pulse 2). Where levels of a column collide, the words each one's description has and the others' lack
are annotated on their own (the offline annotator, no event tags) and added to the level; where even that
says nothing new, a ``Label`` with the level's name keeps it apart and the collision is reported.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from agents.conventions import forms
from agents.offline.annotator import annotate_offline
from agents.schema import canonical
from bidsdata.composition import cues
from bidsdata.composition.events import event_groups
from bidsdata.composition.parametric import parametric, value_items
from bidsdata.composition.tags import (
    EVENT_TYPES,
    TASK_ROLES,
    Names,
    names,
    short_tag,
    shorts,
    top_level_items,
)
from bidsdata.glossary import Glossary
from bidsdata.schemas import load_schema, validate_hed_string

_LABEL = re.compile(r"[^A-Za-z0-9_-]+")
_MIN_WORD = 3
"""Shorter words ("go", "on") name schema tags by accident more often than by meaning."""
_NOT_DISTINCT = EVENT_TYPES | TASK_ROLES | {"experiment-participant", "computer-screen", "sensory-presentation"}


def key(hed: str, known: Names) -> tuple[str, ...]:
    return tuple(sorted(t.lower() for t in re.split(r"[(),]", hed.replace(" ", "")) if t))


def meaning_items(text_words: list[str], known: Names, version: str | list[str] | None) -> list[str]:
    """What the offline annotator makes of *text_words*, without event types, task roles or modalities."""
    if not text_words:
        return []
    schema = canonical(version)  # a list with prefixed libraries is one comma-joined version string
    try:
        hed = annotate_offline(" ".join(text_words), schema_version=schema).annotation
    except Exception:
        return []
    items = []
    # Words the annotator read as no tag at all may still be the names of schema tags ("high" -> High).
    for item in top_level_items(hed) + ([] if _has_meaning(hed, known) else _schema_items(text_words, schema)):
        if short_tag(item, known) in _NOT_DISTINCT or short_tag(item, known) in known.modalities:
            continue
        if all(s in _NOT_DISTINCT or s in known.modalities for s in shorts(item, known)):
            continue
        items.append(item)
    return items


def _has_meaning(hed: str, known: Names) -> bool:
    return any(s not in _NOT_DISTINCT and s not in known.modalities for s in shorts(hed, known))


def add_items(hed: str, items: list[str], known: Names, nested: bool) -> str:
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
    valued = parametric(out)  # LOAD-2, LOAD-4: the number is what sets them apart, as a value
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
                    i for i in (hints or {}).get(level, []) or meaning_items(own, known, version)
                    if key(i, known) and key(i, known) not in avoid
                    and not set(key(i, known)) <= set(key(out[level], known))]
                if items:
                    out[level] = add_items(out[level], items, known, nested)
                elif attempt or not own:
                    if level in valued:
                        out[level] = add_items(out[level], value_items(*valued[level], version), known, nested)
                        continue
                    named = _named_item(out[level], level, texts.get(level, []), version)
                    if named:
                        out[level] = named
                        continue
                    name = _LABEL.sub("-", label_prefix + level).strip("-") or "level"
                    out[level] = add_items(out[level], [f"Label/{name}"], known, nested)
                    labelled.append(level)
    return out, labelled


def _named_item(hed: str, level: str, text_words: list[str], version: str | list[str] | None) -> str | None:
    """*hed* with the level's code as the value of the thing it names, where the schema gives that thing a
    value slot and the level's description calls it by the code: "the key with code 49" -> ``Keyboard-key/49``.

    Which key was pressed is what the level says, so it is meaning, not a name beside it (a ``Label``)."""
    code = level.strip()
    # A level with no description has its own name as its only words: that calls nothing by a code.
    if not re.fullmatch(r"[A-Za-z0-9]{1,12}", code) or code.lower() not in text_words or len(text_words) < 2:
        return None
    slots = _value_slots(canonical(version))
    for token in re.findall(r"[A-Za-z-]+(?=\s*[,)]|\s*$)", hed):
        if token.lower() in slots:
            valued = re.sub(rf"(?<![\w/-]){re.escape(token)}(?![\w/-])", f"{token}/{code}", hed, count=1)
            if not validate_hed_string(valued, version):
                return valued
    return None


@functools.cache
def _value_slots(version: str) -> frozenset[str]:
    """Short names (lower case) of the schema's items that take a value naming which one they are (a key)."""
    schema = load_schema(version)
    if not hasattr(schema, "tags"):
        return frozenset()
    return frozenset(e.short_tag_name.lower() for e in schema.tags.values()
                     if not e.name.endswith("#") and e.long_tag_name.startswith("Item/")
                     and e.takes_value_child_entry is not None)


def level_texts(levels: Mapping[str, str], describe: Mapping[str, str],
                glossary: Glossary | None = None) -> dict[str, list[str]]:
    """The words of each level's description; a level with none by its name, its codes read through the
    task's *glossary* where they abbreviate the task's own words."""
    def named(level: str) -> list[str]:
        return cues.words(" ".join(glossary.gloss(level))) if glossary else cues.words(level)

    return {lv: cues.words(describe[lv]) if describe.get(lv) else named(lv) for lv in levels}


@functools.cache
def _bare_tag(word: str, version: str) -> str | None:
    """The schema tag a plain word names, when it is valid alone (no value needed): "high" -> High."""
    known = names(version)
    for form in sorted(forms(word)):
        long = known.long.get(form)
        if long is None or form in _NOT_DISTINCT or form in known.modalities:
            continue
        tag = long.rsplit("/", 1)[-1]
        if not validate_hed_string(tag, version):
            return tag
    return None


def _schema_items(text_words: list[str], version: str) -> list[str]:
    """Tags of the schema that the words name themselves, for words the offline annotator read as nothing."""
    found = [_bare_tag(w, version) for w in text_words if len(w) >= _MIN_WORD and w.isalpha()]
    return list(dict.fromkeys(t for t in found if t))
