"""Reading JSON out of model replies without letting a hostile or runaway reply crash a run.

``json`` recurses once per nesting level and raises :class:`RecursionError` (not ``ValueError``)
about a thousand levels down, which a reply of a few hundred brackets reaches well within a
token budget; so does any recursive walk over what it decoded.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 20  # annotations nest three levels; verdicts are flat objects
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def json_depth(data: Any) -> int:
    """How deep lists and objects nest in *data* (a scalar is 0), without recursing."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list | tuple):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
    return deepest


def decode_prefix(text: str) -> Any | None:
    """The JSON value *text* starts with, or None when there is none or it nests too deep."""
    try:
        data, _ = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    return data if json_depth(data) <= MAX_JSON_DEPTH else None


def json_object(text: str) -> dict[str, Any] | None:
    """The outermost ``{...}`` in a reply as a dict, or None when there is none readable."""
    match = _OBJECT.search(text)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None
