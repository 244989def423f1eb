"""Last line of defence: validate with hedtools and drop whatever it rejects."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agents.hedstring import parse_groups
from agents.state import ValidationIssue
from agents.validation import validate_hed

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

logger = logging.getLogger(__name__)

Tree = list["str | Tree"]
_MAX_ROUNDS = 4


def parse(text: str) -> Tree:
    """A HED string as nested lists of tag strings (enough for strings this package writes)."""
    return parse_groups(text)


def serialize(tree: Tree) -> str:
    parts = []
    for el in tree:
        if isinstance(el, list):
            inner = serialize(el)
            if inner:
                parts.append(f"({inner})")
        else:
            parts.append(el)
    return ", ".join(parts)


def _drop(tree: Tree, bad: set[str]) -> Tree:
    out: Tree = []
    for el in tree:
        if isinstance(el, list):
            kept = _drop(el, bad)
            if kept:
                out.append(kept)
        elif el.lower() not in bad:
            out.append(el)
    return out


def flat_tags(tree: Tree) -> list[str]:
    out: list[str] = []
    for el in tree:
        out.extend(flat_tags(el) if isinstance(el, list) else [el])
    return out


def validation_errors(text: str, version: str, no_extend: bool = False) -> list[ValidationIssue]:
    return [i for i in validate_hed(text, version, no_extend=no_extend) if i.is_error]


def repair(text: str, vocab: Vocabulary, avoid: set[str], no_extend: bool) -> str:
    """*text* minus avoided tags, extensions (if forbidden) and tags hedtools rejects; "" if nothing is left."""
    tree = parse(text)
    unwanted = {t.lower() for t in flat_tags(tree) if vocab.get(t) is None
                or vocab.get(t).name.lower() in avoid}  # type: ignore[union-attr]
    tree = _drop(tree, unwanted)
    for _ in range(_MAX_ROUNDS):
        candidate = serialize(tree)
        if not candidate:
            return ""
        errors = validation_errors(candidate, vocab.version, no_extend)
        if not errors:
            return candidate
        bad = {e.tag.lower() for e in errors} - {""}
        logger.debug("offline annotation %r: dropping %s", candidate, sorted(bad) or "everything grouped")
        if not bad:
            # An error about a group as a whole: keep only the top-level tags.
            tree = [el for el in tree if not isinstance(el, list)]
            continue
        tree = _drop(tree, bad)
    return ""
