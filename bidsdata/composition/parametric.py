"""Parametric levels: one thing at several values (``LOAD-2``, ``LOAD-4``; ``contrast_1`` .. ``contrast_5``).

Such levels differ by a number only, and the number is what they mean: a curator writes the thing and its
value, never ``Label/LOAD-2`` alone. A column is parametric when every level is one stem and a number, with
at least two numbers: the stem is named and the number is its ``Parameter-value``; in a condition column the
stem is the factor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bidsdata.schemas import validate_hed_string

_STEMMED = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)[\s_.-]*(\d+(?:\.\d+)?)\s*$")
_NAME = re.compile(r"[^A-Za-z0-9-]+")


def parametric(levels: Iterable[str]) -> dict[str, tuple[str, str]]:
    """level -> (stem, number) when every one of *levels* is one stem and a number and the numbers differ;
    else {}. The stem is compared without case: ``LOAD-2`` and ``load_4`` are one thing."""
    found: dict[str, tuple[str, str]] = {}
    for level in levels:
        m = _STEMMED.match(str(level))
        if not m:
            return {}
        found[str(level)] = (m.group(1).strip(), m.group(2))
    stems = {stem.lower() for stem, _ in found.values()}
    numbers = {number for _, number in found.values()}
    return found if len(found) >= 2 and len(stems) == 1 and len(numbers) == len(found) else {}


def stem_name(stem: str) -> str:
    """The stem as a HED name: ``working memory`` -> ``Working-memory``."""
    name = _NAME.sub("-", stem.strip()).strip("-") or "Parameter"
    return name[:1].upper() + name[1:].lower()


def value_items(stem: str, number: str, version: str | list[str] | None) -> list[str]:
    """What a level of *stem* at *number* says beside its other tags: ``(Parameter-label/Stem,
    Parameter-value/N)``, or the value alone where the schema refuses the stem as a name."""
    grouped = f"(Parameter-label/{stem_name(stem)}, Parameter-value/{number})"
    return [grouped] if not validate_hed_string(grouped, version) else [f"Parameter-value/{number}"]


__all__ = ["parametric", "stem_name", "value_items"]
