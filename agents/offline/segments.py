"""Sentences of a description: the candidates for separate events.

Pure text: a sentence ends at ".", "!", "?" or ";" followed by a capital letter, a digit or a
line break, or at a blank line; abbreviations ("e.g. the") and decimals ("5.15 degrees") do not end one.
"""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"(?<=[.!?;])\s+(?=[\"'(\u2018\u201c]?[A-Z0-9])|\s*\n\s*\n\s*|(?<=[.!?;])\s*\n\s*")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "approx.", "fig.", "cf.", "mr.", "mrs.", "dr.")


def split_sentences(text: str) -> list[str]:
    """The sentences of *text*, stripped, in order; one item for a single sentence."""
    pieces: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        before = text[start : m.start()].rstrip()
        if before.lower().endswith(_ABBREVIATIONS):
            continue  # "approx. 500 ms" goes on
        pieces.append(text[start : m.start()])
        start = m.end()
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]
