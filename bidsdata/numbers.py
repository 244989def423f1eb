"""Numbers as events files write them: what reads as one (``1.000``, ``-3``, ``2e-3``) and what is whole."""

from __future__ import annotations


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def is_integer(text: str) -> bool:
    return text.lstrip("+-").isdigit()
