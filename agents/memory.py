"""Memory of accepted annotations: find the reviewed examples closest to a new description.

Pure and stdlib-only so the Django side can call it on every run: it picks the few accepted
annotations most similar to a description (token Jaccard, ties broken by character similarity),
and the annotation agent reuses an accepted annotation outright only on an exact normalised match.
"""

from __future__ import annotations

import difflib
import heapq
import re
import unicodedata
from collections.abc import Iterable, Sequence

from agents.state import AnnotationState, MemoryExample

# Below this similarity an example says more about another event than about this one.
MIN_SIMILARITY = 0.3
# Accepted examples one prompt carries, and the longest annotation shown: a long one would crowd out
# the vocabulary slice, and a cut one would teach broken HED, so it is left out rather than shortened.
MAX_PROMPT_EXAMPLES = 3
MAX_EXAMPLE_ANNOTATION_CHARS = 800
# Candidates given the (slower) character comparison after the token pass.
_SHORTLIST = 20
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+")
# Words so common that sharing them says nothing about two events being alike.
_COMMON = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "is", "are", "be", "and", "or", "with",
                     "for", "by", "that", "this", "it", "its", "as", "from", "into", "was", "were"})


def normalise_description(text: str) -> str:
    """Lower case, one spacing, no punctuation, numbers split from units: "A 500ms Tone." -> "a 500 ms tone"."""
    folded = unicodedata.normalize("NFKC", text or "").replace("\u2019", "'").lower()
    return " ".join(_TOKEN.findall(folded))


def _tokens(normalised: str) -> frozenset[str]:
    words = normalised.split()
    content = frozenset(w for w in words if w not in _COMMON)
    return content or frozenset(words)


def _jaccard(ta: frozenset[str], tb: frozenset[str]) -> float:
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def _score(na: str, ta: frozenset[str], nb: str, tb: frozenset[str]) -> float:
    if na == nb:
        return 1.0
    # Word overlap decides; character similarity only separates near-ties (word order, inflections).
    ratio = difflib.SequenceMatcher(None, na, nb, autojunk=False).ratio() if na and nb else 0.0
    return min(0.99, 0.8 * _jaccard(ta, tb) + 0.2 * ratio)


def exact_match(text: str, candidates: Iterable[MemoryExample]) -> MemoryExample | None:
    """The first accepted example whose description is *text* after normalisation."""
    key = normalise_description(text)
    if not key:
        return None
    return next((c for c in candidates if normalise_description(c.description) == key and c.annotation.strip()),
                None)


def most_similar(text: str, candidates: Sequence[MemoryExample], k: int = 3,
                 min_score: float = MIN_SIMILARITY) -> list[MemoryExample]:
    """The *k* candidates most similar to *text*, best first; an exact normalised match always leads.

    Duplicates (same normalised description and annotation) count once, the first one given
    winning, so a caller that lists the newest first keeps the newest. Fast on thousands of
    candidates: a cheap token pass shortlists, only the shortlist gets the character comparison.
    """
    if k <= 0:
        return []
    key = normalise_description(text)
    tokens = _tokens(key)
    seen: set[tuple[str, str]] = set()
    rough: list[tuple[float, int, MemoryExample, str, frozenset[str]]] = []
    for order, example in enumerate(candidates):
        if not example.annotation.strip():
            continue
        norm = normalise_description(example.description)
        ident = (norm, " ".join(example.annotation.split()))
        if ident in seen:
            continue
        seen.add(ident)
        ctokens = _tokens(norm)
        rough.append((2.0 if norm == key else _jaccard(tokens, ctokens), order, example, norm, ctokens))
    shortlist = heapq.nlargest(max(_SHORTLIST, k), rough, key=lambda r: (r[0], -r[1]))
    scored = [(_score(key, tokens, norm, ctokens), order, example)
              for _, order, example, norm, ctokens in shortlist]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [example for score, _, example in scored if score >= min_score][:k]


REVIEWED, OWN = "reviewed", "own"


def provenance(example: MemoryExample) -> str:
    """Where *example* came from, for the run's notes and steps: every reuse names its source."""
    if example.origin == OWN:
        return f"your own correction of run {example.source_id}"
    return f"the annotation of run {example.source_id}, accepted by a reviewer"


def prompt_examples(examples: Sequence[MemoryExample]) -> list[MemoryExample]:
    """The examples a model's prompt carries: the first few whose annotation is short enough to show whole."""
    fitting = [e for e in examples if e.annotation.strip() and len(e.annotation) <= MAX_EXAMPLE_ANNOTATION_CHARS]
    return fitting[:MAX_PROMPT_EXAMPLES]


def reusable_example(state: AnnotationState) -> MemoryExample | None:
    """An accepted annotation of this very description (normalised), unless it already failed validation."""
    match = exact_match(state.description, state.examples)
    if match is None:
        return None
    if any(it.annotation == match.annotation and it.errors for it in state.iterations):
        return None  # e.g. written for another schema version: annotate afresh
    return match
