"""Small helpers over HED strings that need no schema."""

from __future__ import annotations

import re

_SPLIT = re.compile(r"[(),]")


def tag_tokens(hed: str) -> list[str]:
    """Every tag in *hed*, in order, groups flattened, whitespace trimmed."""
    return [t.strip() for t in _SPLIT.split(hed) if t.strip()]


def base_name(tag: str) -> str:
    """``Frequency/500 Hz`` -> ``Frequency``; ``Item/Blorp`` -> ``Item``."""
    return tag.split("/", 1)[0].strip()
