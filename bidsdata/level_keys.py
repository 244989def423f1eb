"""Level keys a lab's sidecar writes otherwise than its events files: ``k7`` or ``07`` for the value ``7``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_CODE = re.compile(r"^([A-Za-z_]*)[-_ ]?0*(\d+)$")


def written_as(declared: Mapping[str, Any], counts: Mapping[str, int]) -> dict[str, str]:
    """The sidecar's level keys that differ from the values the events files write only by a prefix or zero
    padding (``k7`` or ``07`` for ``7``): key -> value. The lab's legend of its codes, read.

    Only where every declared key that no events row holds maps to one value no key names, each to its own; a
    key that maps nowhere, or two keys to one value, leave the levels as declared (what they mean is the lab's
    to say)."""
    unused = [k for k in declared if k not in counts]
    free = {v for v in counts if v not in declared}
    if not unused or not free:
        return {}
    numbers: dict[str, str] = {}
    for value in free:
        m = _CODE.match(value)
        if m and not m.group(1):
            numbers.setdefault(m.group(2), value)
    mapped: dict[str, str] = {}
    for key in unused:
        m = _CODE.match(key)
        value = numbers.get(m.group(2)) if m else None
        if value is None or value in mapped.values():
            return {}
        mapped[key] = value
    return mapped


__all__ = ["written_as"]
