"""A word-level diff of two HED annotations, on tag tokens, for showing what a reviewer changed."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

# Tags, parentheses and commas are the words of a HED string; whitespace between them is not.
_SPLIT = re.compile(r"([(),])")


@dataclass(frozen=True)
class DiffPart:
    op: str  # "same", "added" or "removed"
    text: str

    @property
    def is_tag(self) -> bool:
        return self.text not in {"(", ")", ","}


def tokens(hed: str) -> list[str]:
    """*hed* as tag and punctuation tokens: ``"A, (B/2 s, C)"`` -> ``A , ( B/2 s , C )``."""
    return [" ".join(t.split()) for t in _SPLIT.split(hed or "") if t.strip()]


def tag_diff(before: str, after: str) -> list[DiffPart]:
    """The parts of *after* and *before* in reading order, each the same, added or removed."""
    old, new = tokens(before), tokens(after)
    parts: list[DiffPart] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.extend(DiffPart("same", t) for t in new[j1:j2])
            continue
        # A replaced run shows what went out before what came in.
        parts.extend(DiffPart("removed", t) for t in old[i1:i2])
        parts.extend(DiffPart("added", t) for t in new[j1:j2])
    return parts
