"""Faithfulness: which terms of a description an annotation (anyone's) leaves out.

Two kinds of omission: *uncovered* terms, which the lexicon or the schema knows (a tag exists
and the annotation lacks it), and *unknown* words, content words nobody here knows, so no tag
the annotation holds can be vouched for them.  Both lower the confidence of the verdict.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from agents.offline.clauses import PURPOSE_TAGS, alternatives, leaves_open, purpose_span
from agents.offline.events import IMPLICIT_TAGS, kind_of, omitted_by_convention
from agents.offline.lexicon import Match, get_lexicon
from agents.offline.text import Token, attributive, find_quantities
from agents.offline.validity import flat_tags, parse
from agents.schema import DEFAULT_SCHEMA_VERSION
from agents.vocabulary import TagInfo, Vocabulary, get_vocabulary, name_words

_WORD = re.compile(r"[A-Za-z]+")
# How far up the tree a present tag may sit and still stand for a more specific term
# ("Ellipse" covers "circle"; "Item" does not).
_MAX_ANCESTOR_GAP = 2
_MIN_ANCESTOR_DEPTH = 2


def _stands_for(term_tag: TagInfo, present: TagInfo) -> bool:
    """True if *present* in an annotation expresses *term_tag* exactly, more generally or more specifically."""
    if term_tag.name == present.name:
        return True
    term_line, present_line = term_tag.lineage(), present.lineage()
    if present.name in term_line:
        depth = term_line.index(present.name)
        return depth >= _MIN_ANCESTOR_DEPTH - 1 and len(term_line) - depth <= _MAX_ANCESTOR_GAP
    if term_tag.name in present_line:
        return True  # a more specific tag still says it
    # Siblings naming the same idea: To-left-of / Left-side-of, Blue / DarkBlue.
    return term_tag.parent == present.parent and bool(
        set(name_words(term_tag.name)) & set(name_words(present.name)))


def _annotation_content(annotation: str, vocab: Vocabulary) -> tuple[list[TagInfo], set[str]]:
    """The known tags of *annotation*, and every word written in it (labels and extensions too)."""
    tags: list[TagInfo] = []
    words: set[str] = set()
    for text in flat_tags(parse(annotation)):
        info = vocab.get(text)
        if info is None:
            # An extension like Item/Blorp: its known part counts as a tag, its words as text.
            info = next((vocab.get(p) for p in text.split("/")[:-1][::-1] if vocab.get(p)), None)
        if info is not None:
            tags.append(info)
        words.update(w.lower() for w in _WORD.findall(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)))
    return tags, words


def _is_bound(match_tags: tuple[str, ...], last: int, tokens: list[Token]) -> bool:
    """ "within 2 s": a bound on a quantity, which the quantity's own tag says."""
    return match_tags == ("Within",) and last + 1 < len(tokens) and tokens[last + 1].is_number


def _names_a_thing(match: Match, tokens: list[Token], vocab: Vocabulary) -> bool:
    """ "the attended ear": an action's participle that says which thing, not an act of this event."""
    return bool(match.tags) and all(kind_of(vocab, t) == "action" for t in match.tags) and attributive(
        tokens, match.first, match.last)


def _unasserted(match: Match, tokens: list[Token], vocab: Vocabulary) -> bool:
    """Words deliberately left out: what a purpose clause marks ("shown to mark the end of the block")
    is not happening, and the places "either ... or" offers are not said to hold."""
    return ((match.first in purpose_span(tokens) and not set(match.tags) & PURPOSE_TAGS)
            or leaves_open(vocab, match.tags, match.first, alternatives(tokens)))


def uncovered_terms(
    description: str, annotation: str, schema_version: str = DEFAULT_SCHEMA_VERSION
) -> tuple[str, ...]:
    """Terms of *description* that the lexicon maps to tags none of which *annotation* expresses."""
    vocab = get_vocabulary(schema_version)
    lex = get_lexicon(vocab)
    present, words = _annotation_content(annotation, vocab)
    names = {p.name for p in present}
    missing: list[str] = []
    tokens = lex.tokens(description)
    for match in lex.match(tokens):
        if (match.negated or not set(match.tags) - IMPLICIT_TAGS or match.term in missing
                or _unasserted(match, tokens, vocab)):
            continue
        if (omitted_by_convention(set(match.tags), names) or _is_bound(match.tags, match.last, tokens)
                or _names_a_thing(match, tokens, vocab)):
            continue
        infos = [i for i in (vocab.get(t) for t in match.tags) if i is not None]
        if any(_stands_for(t, p) for t in infos for p in present):
            continue
        if set(match.term.split()) <= words:
            continue  # written out, e.g. as a Label value
        missing.append(match.term)
    return tuple(missing)


# Endings of English adjectives and adverbs: modifiers weigh half as much as the nouns and verbs
# that say what happened ("quickly", "colorless" matter less than "dishwasher").
_MODIFIER_ENDINGS = ("ly", "ous", "ful", "ive", "able", "ible", "less", "ic", "ical", "ish", "al")
_MODIFIER_WEIGHT = 0.5


@functools.cache
def generic_words() -> frozenset[str]:
    """General English words that carry little event content (see generic_words.txt)."""
    text = (Path(__file__).with_name("generic_words.txt")).read_text(encoding="utf-8")
    return frozenset(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


@dataclass(frozen=True)
class Coverage:
    """How much of a description an annotation expresses, word by word."""

    uncovered: tuple[str, ...]  # known terms (a tag exists) the annotation leaves out
    unknown: tuple[str, ...]  # content nouns and verbs nobody knows: nothing expresses them
    unknown_modifiers: tuple[str, ...]  # unknown adjectives and adverbs (weigh half)
    understood: float  # weight of the content words known and expressed
    total: float  # weight of all content words

    @property
    def confidence(self) -> float:
        return 1.0 if self.total == 0 else round(self.understood / self.total, 3)


def _weight(token: Token) -> float:
    return _MODIFIER_WEIGHT if token.text.endswith(_MODIFIER_ENDINGS) else 1.0


@dataclass
class _Tally:
    """Running weights of the content words understood and of all of them, in the description's order."""

    understood: float = 0.0
    total: float = 0.0


def _expressed(match: Match, tokens: list[Token], vocab: Vocabulary, present: list[TagInfo], words: set[str]) -> bool:
    """True if *annotation*'s tags or words say *match*, or HED's conventions leave it out on purpose."""
    tags = set(match.tags)
    names = {p.name for p in present}
    infos = [i for i in (vocab.get(t) for t in tags) if i is not None]
    return (not tags - IMPLICIT_TAGS or any(_stands_for(t, p) for t in infos for p in present)
            or set(match.term.split()) <= words or omitted_by_convention(tags, names)
            or _is_bound(match.tags, match.last, tokens) or _names_a_thing(match, tokens, vocab))


def _judge_matches(matches: list[Match], tokens: list[Token], vocab: Vocabulary, present: list[TagInfo],
                   words: set[str], tally: _Tally) -> list[str]:
    """Weigh every term the lexicon knows; the terms known but left out."""
    uncovered: list[str] = []
    for match in matches:
        if match.negated or not match.tags or _unasserted(match, tokens, vocab):
            continue  # deliberately untagged, or a common word the lexicon knows stands for no tag
        weight = float(sum(1 for i in range(match.first, match.last + 1) if tokens[i].is_content) or 1)
        tally.total += weight
        if _expressed(match, tokens, vocab, present, words):
            tally.understood += weight
        elif match.term not in uncovered:
            uncovered.append(match.term)
    return uncovered


def _judge_unknown(description: str, tokens: list[Token], matches: list[Match], words: set[str],
                   tally: _Tally) -> tuple[list[str], list[str]]:
    """Weigh the content words nobody knows: (unknown nouns and verbs, unknown modifiers) not written out."""
    purpose = purpose_span(tokens)
    in_match = {i for m in matches for i in range(m.first, m.last + 1)}
    # Numbers and their units are the value tags' business, judged with the tags above.
    in_quantity = {i for q in find_quantities(description, tokens) for i in range(*q.token_span)}
    generic = generic_words()
    unknown: list[str] = []
    modifiers: list[str] = []
    seen: set[str] = set()
    for token in tokens:
        if (not token.is_content or token.index in in_match or token.index in in_quantity
                or token.index in purpose or token.text in seen or token.text in generic or token.norm in generic):
            continue
        seen.add(token.text)
        weight = _weight(token)
        tally.total += weight
        if token.text in words or token.norm in words:
            tally.understood += weight  # written out, e.g. as a Label value
        elif weight < 1.0:
            modifiers.append(token.text)
        else:
            unknown.append(token.text)
    return unknown, modifiers


def assess_coverage(
    description: str, annotation: str, schema_version: str = DEFAULT_SCHEMA_VERSION
) -> Coverage:
    """Every content word of *description*: expressed by *annotation*, left out though known, or unknown."""
    vocab = get_vocabulary(schema_version)
    lex = get_lexicon(vocab)
    present, words = _annotation_content(annotation, vocab)
    tokens = lex.tokens(description)
    matches = lex.match(tokens)
    tally = _Tally()
    uncovered = _judge_matches(matches, tokens, vocab, present, words, tally)
    unknown, modifiers = _judge_unknown(description, tokens, matches, words, tally)
    return Coverage(tuple(uncovered), tuple(unknown), tuple(modifiers), tally.understood, tally.total)
