"""Small helpers over HED strings that need no schema."""

from __future__ import annotations

import re
from typing import Any

_SPLIT = re.compile(r"[(),]")
MAX_GROUP_DEPTH = 20
"""The deepest nesting of parenthesised groups read anywhere (a reply, an uploaded sidecar, an events file's HED
column): hedtools parses groups recursively and raises RecursionError a few hundred deep, and copying its parsed
strings fails sooner. Real annotations nest three or four deep."""


def group_depth(hed: str) -> int:
    """How deep *hed*'s parentheses nest (a stray ``)`` does not go below the top)."""
    depth = deepest = 0
    for ch in hed:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth = max(depth - 1, 0)
    return deepest


def tag_tokens(hed: str) -> list[str]:
    """Every tag in *hed*, in order, groups flattened, whitespace trimmed."""
    return [t.strip() for t in _SPLIT.split(hed) if t.strip()]


def base_name(tag: str) -> str:
    """``Frequency/500 Hz`` -> ``Frequency``; ``Item/Blorp`` -> ``Item``."""
    return tag.split("/", 1)[0].strip()


def parse_groups(hed: str) -> list[Any]:
    """*hed* as nested lists of tag strings, one list per parenthesised group.

    Forgiving by design: an unclosed group is closed at the end, a stray ")" ignored.
    """
    stack: list[list[Any]] = [[]]
    token = ""
    for ch in hed:
        if ch in "(),":
            if token.strip():
                stack[-1].append(token.strip())
            token = ""
            if ch == "(":
                stack.append([])
            elif ch == ")" and len(stack) > 1:
                group = stack.pop()
                stack[-1].append(group)
        else:
            token += ch
    if token.strip():
        stack[-1].append(token.strip())
    while len(stack) > 1:
        group = stack.pop()
        stack[-1].append(group)
    return stack[0]


def top_level_items(hed: str) -> list[str]:
    """The comma-separated items of *hed* outside any parentheses, stripped."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(hed):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append(hed[start:i].strip())
            start = i + 1
    items.append(hed[start:].strip())
    return [item for item in items if item]
