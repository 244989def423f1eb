"""How deep a JSON text nests, measured without parsing it.

``json.loads`` recurses once per level (a body of 100,000 ``[`` is a ``RecursionError``), and so do
``copy.deepcopy`` and the encoders that later walk a stored value: the depth is measured first, in
linear time and without recursion, so anything too deep is refused before it is parsed.
"""

from __future__ import annotations

import re

# A JSON string (escapes included); what is inside cannot open or close a level.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in *text* (0 for a scalar)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest
