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
from agents.vocabulary import TagInfo, get_vocabulary, name_words

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

logger = logging.getLogger(__name__)

LEXICON_DIR = Path(__file__).parent
_PHRASE_WORD = re.compile(r"[a-z0-9]+")
BLOCK = "-"
_END = ""  # trie key marking the end of a phrase
# English prefixes that turn a word into its opposite.
_NEGATIVE_PREFIXES = ("un", "in", "im", "ir", "il", "non", "dis")

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
    """(phrase words, tag specs) pairs from the lexicon files; a later entry for a phrase wins."""
    entries: dict[tuple[str, ...], tuple[str, ...]] = {}
    files = [LEXICON_DIR / "lexicon.txt", *sorted(LEXICON_DIR.glob("lexicon_*.txt"))]
    lines = [(f.name, n, raw) for f in files
             for n, raw in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)]
    for filename, lineno, raw in lines:
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        phrases, sep, targets = line.rpartition(":")
        if not sep or not phrases.strip():
            logger.warning("%s:%d: no ':' separator, line ignored", filename, lineno)
            continue
        specs = tuple(targets.split())
        for phrase in phrases.split(","):
            words = tuple(_PHRASE_WORD.findall(phrase.lower()))
            words = tuple(w for w in words if w not in ARTICLES)
            if not words:
                continue
            entries[words] = () if specs == (BLOCK,) else specs
    return tuple(entries.items())


class Lexicon:
    """Lexicon phrases resolved against one schema version, plus that version's own tag names."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
        # Blocked words map to no tag: they still match, so no inflection of them is misread.
        explicit = {words: tuple(t for t in (self._resolve(s) for s in specs) if t)
                    for words, specs in _raw_entries()}
        blocked = {words for words, specs in _raw_entries() if not specs}
        for info in vocab.all():
            if vocab.is_deprecated(info.name) or any(a in _NO_AUTO_UNDER for a in info.lineage()):
                continue
            if info.name in _NO_AUTO_UNDER:
                continue
            words = name_words(info.bare_name)
            for key in {words, (info.bare_name.lower(),)} if "-" not in info.name else {words}:
                if key not in blocked:
                    self.phrases.setdefault(key, (info.name,))
        self.phrases.update(explicit)
        # The library a version names is what its user asked for: its tags' own words win over the lexicon's
        # standard reading of them ("tonic clonic seizure" is the library's seizure, not a label).
        self.phrases.update({k: v for k, v in library_phrases(vocab).items() if k not in blocked})
        self.known: frozenset[str] = frozenset(w for key in self.phrases for w in key)
        # One-word phrases the schema files under Action (or a response): the verbs an order opens with.
        self.verbs: frozenset[str] = frozenset(
            key[0] for key, tags in self.phrases.items()
            if len(key) == 1 and tags and all(vocab.is_under(t, "Action") or t == "Participant-response"
                                              for t in tags))
        self._trie: dict[str, dict] = {}
        for key, tags in self.phrases.items():
            node = self._trie
            for word in key:
                node = node.setdefault(word, {})
            node[_END] = tags

    def _resolve(self, spec: str) -> str | None:
        """The first alternative of ``A|B`` that this schema version has."""
        for alt in spec.split("|"):
            info = self.vocab.get(alt)
            if info is not None and not self.vocab.is_deprecated(alt):
                return info.name
        return None

    def tokens(self, text: str) -> list[Token]:
        return tokenize(text, self.known.__contains__)

    def _longest(self, stream: list[Token], i: int, node: dict, depth: int) -> tuple[int, tuple[str, ...]] | None:
        """Longest phrase starting at stream[i], trying each known form of every word."""
        best = (depth, node[_END]) if _END in node and depth else None
        if i >= len(stream) or stream[i].is_break:
            return best
        for form in stream[i].forms:
            child = node.get(form)
            if child is not None:
                hit = self._longest(stream, i + 1, child, depth + 1)
                if hit is not None and (best is None or hit[0] > best[0]):
                    best = hit
        return best

    def match(self, tokens: list[Token]) -> list[Match]:
        """Longest phrase matches, left to right, never across a clause break."""
        stream = [t for t in tokens if t.text not in ARTICLES]
        found: list[Match] = []
        i = 0
        while i < len(stream):
            if stream[i].is_break:
                i += 1
                continue
            hit = self._longest(stream, i, self._trie, 0)
            is_negated = negated(tokens, stream[i].index)
            opposite = self._opposite(stream[i]) if is_negated and (hit is None or hit[0] == 1) else None
            if opposite is not None:
                # "not clear" is "unclear", "not familiar" is "unfamiliar": the negated word's opposite.
                found.append(Match(stream[i].text, opposite, stream[i].index, stream[i].index, False))
                i += 1
                continue
            if hit is None:
                i += 1
                continue
            length, tags = hit
            first, last = stream[i], stream[i + length - 1]
            words = [t.text for t in stream[i : i + length]]
            self_negating = any(w in NEGATORS for w in words)
            found.append(Match(" ".join(words), tags, first.index, last.index, not self_negating and is_negated))
            i += length
        return found

    def _opposite(self, token: Token) -> tuple[str, ...] | None:
        """Tags of the word formed with a negative prefix ("clear" -> "unclear"), if the lexicon knows one.

        Only a quality has a prefixed opposite: "not played" is not "displayed", nor "not cover" "discover".
        """
        for form in token.forms:
            for prefix in _NEGATIVE_PREFIXES:
                tags = self.phrases.get((prefix + form,))
                if tags and all(self.vocab.is_under(t, "Property") for t in tags):
                    return tags
        return None


_DESCRIPTION_PHRASE_WORDS = 6  # a library tag's description this short is a phrase that names it
_SENTENCE_END = re.compile(r"[.;:(]")


def library_phrases(vocab: Vocabulary) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Phrases that name the library tags of *vocab*: each tag's own words, the trailing words of its name
    when only one library tag ends with them ("photic stimulation" of a longer name), and its description
    when that is a short phrase (the schema's own wording of the tag)."""
    tags = [t for t in vocab.all() if t.library and not vocab.is_deprecated(t.name)]
    own = {name_words(t.bare_name): (t.name,) for t in tags}
    tails: dict[tuple[str, ...], set[str]] = {}
    described: dict[tuple[str, ...], set[str]] = {}
    for tag in tags:
        words = name_words(tag.bare_name)
        for start in range(1, len(words) - 1):
            tails.setdefault(words[start:], set()).add(tag.name)
        first = _SENTENCE_END.split(tag.description, maxsplit=1)[0]
        phrase = tuple(w for w in _PHRASE_WORD.findall(first.lower()) if w not in ARTICLES)
        if 2 <= len(phrase) <= _DESCRIPTION_PHRASE_WORDS:
            described.setdefault(phrase, set()).add(tag.name)
    found = {k: (next(iter(v)),) for k, v in described.items() if len(v) == 1 and k not in own}
    found.update({k: (next(iter(v)),) for k, v in tails.items() if len(v) == 1 and k not in own})
    found.update(own)
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


def candidate_tags(text: str, vocab: Vocabulary, limit: int = 40) -> list[TagInfo]:
    """Tags most relevant to *text*: the lexicon's hits first, then the vocabulary's own picks."""
    return vocab.candidates(text, limit, first=lexicon_tags(text, vocab))
