"""Phrase matching of English descriptions against the lexicon and the schema's own tag names."""

from __future__ import annotations

import functools
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agents.offline.text import ARTICLES, NEGATORS, Token, negated, tokenize
from agents.vocabulary import get_vocabulary, name_words

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

logger = logging.getLogger(__name__)

LEXICON_FILE = Path(__file__).with_name("lexicon.txt")
_PHRASE_WORD = re.compile(r"[a-z0-9]+")
BLOCK = "-"

# Subtrees whose names are bookkeeping, not things a description talks about.
_NO_AUTO_UNDER = ("Informational-property", "Organizational-property", "Data-marker", "Metadata")


@dataclass(frozen=True)
class Match:
    term: str  # the words of the description that matched, as written
    tags: tuple[str, ...]  # schema tags (short names) the words mean; empty if none exists in this version
    first: int  # token index of the first matched word
    last: int  # token index of the last matched word
    negated: bool


@functools.cache
def _raw_entries() -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """(phrase words, tag specs) pairs from lexicon.txt; a later entry for a phrase wins."""
    entries: dict[tuple[str, ...], tuple[str, ...]] = {}
    blocked: set[tuple[str, ...]] = set()
    for lineno, raw in enumerate(LEXICON_FILE.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        phrases, sep, targets = line.rpartition(":")
        if not sep or not phrases.strip():
            logger.warning("lexicon.txt:%d: no ':' separator, line ignored", lineno)
            continue
        specs = tuple(targets.split())
        for phrase in phrases.split(","):
            words = tuple(_PHRASE_WORD.findall(phrase.lower()))
            words = tuple(w for w in words if w not in ARTICLES)
            if not words:
                continue
            if specs == (BLOCK,):
                blocked.add(words)
            else:
                entries[words] = specs
    out = [(w, s) for w, s in entries.items()]
    out.extend((w, (BLOCK,)) for w in blocked if w not in entries)
    return tuple(out)


class Lexicon:
    """Lexicon phrases resolved against one schema version, plus that version's own tag names."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
        explicit: dict[tuple[str, ...], tuple[str, ...]] = {}
        blocked: set[tuple[str, ...]] = set()
        for words, specs in _raw_entries():
            if specs == (BLOCK,):
                blocked.add(words)
            else:
                explicit[words] = tuple(t for t in (self._resolve(s) for s in specs) if t)
        for info in vocab.all():
            if vocab.is_deprecated(info.name) or any(a in _NO_AUTO_UNDER for a in info.lineage()):
                continue
            if info.name in _NO_AUTO_UNDER:
                continue
            words = name_words(info.name)
            for key in {words, (info.name.lower(),)} if "-" not in info.name else {words}:
                if key not in blocked:
                    self.phrases.setdefault(key, (info.name,))
        self.phrases.update(explicit)
        self.known: frozenset[str] = frozenset(w for key in self.phrases for w in key)
        self.max_len = max(len(k) for k in self.phrases)

    def _resolve(self, spec: str) -> str | None:
        """The first alternative of ``A|B`` that this schema version has."""
        for alt in spec.split("|"):
            info = self.vocab.get(alt)
            if info is not None and not self.vocab.is_deprecated(alt):
                return info.name
        return None

    def tokens(self, text: str) -> list[Token]:
        return tokenize(text, self.known.__contains__)

    def match(self, tokens: list[Token]) -> list[Match]:
        """Longest phrase matches, left to right, never across a clause break."""
        stream = [t for t in tokens if t.text not in ARTICLES]
        found: list[Match] = []
        i = 0
        while i < len(stream):
            if stream[i].is_break:
                i += 1
                continue
            hit = None
            for length in range(min(self.max_len, len(stream) - i), 0, -1):
                window = stream[i : i + length]
                if any(t.is_break for t in window):
                    continue
                tags = self.phrases.get(tuple(t.norm for t in window))
                if tags is None and length > 1:
                    tags = self.phrases.get(tuple(t.text for t in window))
                if tags is not None:
                    hit = (length, tags)
                    break
            if hit is None:
                i += 1
                continue
            length, tags = hit
            first, last = stream[i], stream[i + length - 1]
            words = [t.text for t in stream[i : i + length]]
            self_negating = any(w in NEGATORS for w in words)
            found.append(Match(" ".join(words), tags, first.index, last.index,
                               not self_negating and negated(tokens, first.index)))
            i += length
        return found


_cache: dict[str, Lexicon] = {}
_lock = threading.Lock()


def get_lexicon(vocab: Vocabulary) -> Lexicon:
    """The lexicon for *vocab*'s schema version, built once per process."""
    lex = _cache.get(vocab.version)
    if lex is None:
        with _lock:
            lex = _cache.get(vocab.version)
            if lex is None:
                lex = _cache[vocab.version] = Lexicon(vocab)
    return lex


def lexicon_tags(text: str, vocab: Vocabulary | None = None) -> list[str]:
    """Tags the lexicon finds in *text* (negated phrases included: the LLM should see them too)."""
    lex = get_lexicon(vocab or get_vocabulary())
    out: list[str] = []
    for m in lex.match(lex.tokens(text)):
        out.extend(t for t in m.tags if t not in out)
    return out
