"""What a level's code abbreviates, read from the words of the task's own context.

Labs name levels with short codes made of the words they describe the task with: for a task described as
"loud or quiet tones at a fast or slow pace", ``ld_fast`` is "loud fast". A token of a code is read as a
context word it begins (``qu`` -> quiet) or as the initials of consecutive context words (``sp`` -> "slow
pace"), else as a word it keeps the letters of (``ld`` -> loud); only where exactly one reading exists, an
ambiguous token stays as written, for the lab to say. The context is searched in tiers, the task's own name
and description first, then the README's description, then the columns' descriptions; a reading found in an
earlier tier wins.

Pure Python: no Django, no hedtools.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[A-Za-z]+")
_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_MIN_PREFIX = 2
"""A one-letter token begins too many words to mean one of them."""
_STOP = frozenset({"a", "an", "and", "or", "the", "of", "in", "on", "at", "to", "for", "with", "by", "from",
                   "is", "are", "was", "were", "be", "as", "this", "that", "these", "those", "it", "its", "their",
                   "task", "trial", "trials", "type", "event", "events", "column", "value", "values", "level",
                   "code", "codes", "data", "dataset", "study", "participant", "participants", "subject",
                   "subjects", "http", "https", "www", "org", "com"})


def _context_words(text: str) -> list[str]:
    """The words of *text* in order (lower case), hyphenated words split ("mirror-image" -> mirror, image)."""
    return [w.lower() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class Glossary:
    """The context words of one task, in tiers (most specific first)."""

    tiers: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, texts: Sequence[str | Iterable[str]]) -> Glossary:
        """A glossary from *texts*, each a tier: a string, or several strings searched as one tier."""
        tiers = []
        for tier in texts:
            parts = [tier] if isinstance(tier, str) else list(tier)
            tiers.append(tuple(w for part in parts for w in _context_words(part)))
        return cls(tuple(t for t in tiers if t))

    def expand(self, token: str) -> str | None:
        """The context words *token* abbreviates, or None where no tier reads it one way only."""
        token = token.lower()
        if not token.isalpha() or token in _STOP:
            return None
        for words in self.tiers:
            if token in words:
                return None  # the token is a word of the task's own: it means itself
            # A clipped word ("qu") or initials ("fp") first; a word with letters left out ("ld") only failing those.
            found = self._readings(token, words) or self._skeletons(token, words)
            if len(found) == 1:
                return next(iter(found))
            if found:
                return None  # ambiguous here: a later tier must not decide what this one could not
        return None

    @staticmethod
    def _readings(token: str, words: tuple[str, ...]) -> set[str]:
        found: set[str] = set()
        if len(token) >= _MIN_PREFIX:
            found |= {w for w in words if w.startswith(token) and w not in _STOP and len(w) > len(token)}
        if len(token) >= 2:
            for start in range(len(words) - len(token) + 1):
                run = words[start:start + len(token)]
                if all(w[0] == c for w, c in zip(run, token, strict=True)) and not any(w in _STOP for w in run):
                    found.add(" ".join(run))
        return found

    @staticmethod
    def _skeletons(token: str, words: tuple[str, ...]) -> set[str]:
        """Words that begin with the token's first letter and hold all its letters in order."""
        if len(token) < _MIN_PREFIX:
            return set()
        pattern = re.compile(".*".join(re.escape(c) for c in token))
        return {w for w in words if w[0] == token[0] and w not in _STOP and len(w) > len(token)
                and pattern.match(w)}

    def gloss(self, name: str) -> list[str]:
        """*name* (a level's code) as words: each token read from the context where it can be, else as written."""
        out: list[str] = []
        for token in _TOKEN.findall(name):
            expanded = self.expand(token)
            out += expanded.split() if expanded else [token.lower()]
        return out


def readme_description(readme: str) -> str:
    """The README's line that describes the study (``Description: ...``), else its first paragraph."""
    for line in readme.splitlines():
        label, _, rest = line.partition(":")
        if label.strip().lower() == "description" and rest.strip():
            return rest.strip()
    return readme.strip().split("\n\n", 1)[0] if readme.strip() else ""


__all__ = ["Glossary", "readme_description"]
