"""Faithfulness: which terms of a description an annotation (anyone's) leaves out."""

from __future__ import annotations

import re

from agents.offline.events import IMPLICIT_TAGS
from agents.offline.lexicon import get_lexicon
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


def uncovered_terms(
    description: str, annotation: str, schema_version: str = DEFAULT_SCHEMA_VERSION
) -> tuple[str, ...]:
    """Terms of *description* that the lexicon maps to tags none of which *annotation* expresses."""
    vocab = get_vocabulary(schema_version)
    lex = get_lexicon(vocab)
    present, words = _annotation_content(annotation, vocab)
    missing: list[str] = []
    for match in lex.match(lex.tokens(description)):
        if match.negated or not set(match.tags) - IMPLICIT_TAGS or match.term in missing:
            continue
        infos = [i for i in (vocab.get(t) for t in match.tags) if i is not None]
        if any(_stands_for(t, p) for t in infos for p in present):
            continue
        if set(match.term.split()) <= words:
            continue  # written out, e.g. as a Label value
        missing.append(match.term)
    return tuple(missing)
