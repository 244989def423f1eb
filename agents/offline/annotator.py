"""The offline annotator: a description in plain English to a valid HED string, without an LLM."""

from __future__ import annotations

import logging
import re
from collections.abc import Collection
from dataclasses import dataclass

from agents.offline.asserted import asserted_text
from agents.offline.clauses import (
    ORDER_VERBS,
    PURPOSE_TAGS,
    alternatives,
    leaves_open,
    orders_in_time,
    other_event,
    purpose_span,
)
from agents.offline.event_groups import TOP_LEVEL_VALUES, dedupe, event_group, has_event
from agents.offline.events import BOUNDARY_WORDS, IMPLICIT_TAGS, STRUCTURE_NOUNS, kind_of
from agents.offline.lexicon import Lexicon, Match, get_lexicon
from agents.offline.rules import FIXATION_WORDS, Composer
from agents.offline.segments import split_sentences
from agents.offline.text import Quantity, Token, attributive, find_quantities
from agents.offline.units import Group, Unit
from agents.offline.validity import Tree, parse, repair, serialize
from agents.schema import DEFAULT_SCHEMA_VERSION
from agents.vocabulary import Vocabulary, get_vocabulary

logger = logging.getLogger(__name__)

FALLBACK = "Event"
# Which value tag a number with a unit of this class most likely gives, by cue words nearby.
_VALUE_TAGS: dict[str, tuple[tuple[frozenset[str], str], ...]] = {
    "frequencyUnits": ((frozenset({"rate", "rhythm", "repetition", "flicker", "flickering", "reverse", "reversal",
                                   "reverses", "flash", "flashes", "flashing"}), "Temporal-rate"),
                       (frozenset({"sampling", "sample", "sampled"}), "Sampling-rate"),
                       (frozenset({"pitch"}), "Pitch"), (frozenset(), "Frequency")),
    "timeUnits": ((frozenset({"age", "aged", "old"}), "Age"),
                  (frozenset({"after", "delay", "delayed", "later", "wait", "latency"}), "Delay"),
                  (frozenset({"interval", "isi", "soa", "every", "between", "pause", "gap"}), "Time-interval"),
                  (frozenset(), "Duration")),
    "physicalLengthUnits": ((frozenset({"wide", "width"}), "Width"), (frozenset({"tall", "height"}), "Height"),
                            (frozenset({"long", "length"}), "Length"), (frozenset({"radius"}), "Radius"),
                            (frozenset(), "Distance")),
    "speedUnits": ((frozenset(), "Speed"),),
    "angleUnits": ((frozenset(), "Angle"),),
    "intensityUnits": ((frozenset(), "Sound-volume"),),
    "percent": ((frozenset(), "Percentage"),),
}


# HED's pairs of opposite roles and properties: a negated one means the other.
ANTONYMS: dict[str, str] = {}
for _a, _b in (("Target", "Non-target"), ("Expected", "Unexpected"), ("Meaningful", "Not-meaningful"),
               ("Congruent", "Incongruent"), ("Familiar", "Unfamiliar"), ("Correct-action", "Incorrect-action"),
               ("Valid", "Invalid"), ("Masked", "Unmasked"), ("Planned", "Unplanned"),
               ("Symmetrical", "Asymmetrical"), ("Voluntary", "Involuntary")):
    ANTONYMS[_a], ANTONYMS[_b] = _b, _a



@dataclass(frozen=True)
class OfflineResult:
    annotation: str
    covered: dict[str, str]
    uncovered: tuple[str, ...]
    # The text of each event when the description tells of several (one top-level group each).
    events: tuple[str, ...] = ()


def _allowed(vocab: Vocabulary, tag: str, avoid: set[str]) -> str | None:
    """*tag*, or its parent when a validator rejected the tag itself, or None."""
    if tag.lower() not in avoid:
        return tag
    info = vocab.get(tag)
    # A parent still says something only below the broad top-level categories.
    if info is not None and info.parent and len(info.lineage()) >= 3 and info.parent.lower() not in avoid:
        return info.parent
    return None


def _counts_items(lex: Lexicon, word: Token) -> bool:
    """True if *word* is the plural of something the lexicon knows as an item ("3 circles")."""
    return any(form != word.text and any(kind_of(lex.vocab, t) == "item" for t in lex.phrases.get((form,), ()))
               for form in word.forms)


def _value_unit(q: Quantity, lex: Lexicon, lemmas: set[str], tokens: list[Token]) -> Unit | None:
    vocab = lex.vocab
    first, last = q.token_span[0], max(q.token_span[1] - 1, q.token_span[0])
    if not q.unit_class:
        following = tokens[last + 1] if last + 1 < len(tokens) else None
        if following is None or not _counts_items(lex, following):
            return None  # a bare number names something ("room 4", "block 2 begins")
        return Unit(f"Item-count/{q.number}", "attribute", first, last)
    for cues, tag in _VALUE_TAGS.get(q.unit_class, ()):
        if cues and not cues & lemmas:
            continue
        if tag not in vocab:
            continue
        if q.unit_class == "percent":
            return Unit(f"{tag}/{q.number}", "attribute", first, last)
        for spelling in q.units:
            unit = vocab.unit_spelling(tag, spelling)
            if unit:
                kind = "duration" if tag in TOP_LEVEL_VALUES else "attribute"
                return Unit(f"{tag}/{q.number} {unit}", kind, first, last)
    return None


def _serialize(elements: list[str | Group]) -> list[str]:
    """HED text of *elements*: no tag twice in a group, empty groups dropped, singletons unwrapped."""
    out: list[str] = []
    seen: set[str] = set()
    for el in elements:
        if isinstance(el, Group):
            inner = _serialize(el.items)
            text = "(" + ", ".join(inner) + ")" if len(inner) > 1 or (inner and el.keep) else "".join(inner)
        else:
            text = el
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def _drop_redundant(texts: list[str]) -> list[str]:
    """Top-level tags that a group already holds say nothing more."""
    grouped = " ".join(t for t in texts if t.startswith("("))
    inside = {g.strip().lower() for g in re.split(r"[,()]", grouped) if g.strip()}
    return [t for t in texts if t.startswith("(") or t.lower() not in inside]


def _units(matches: list[Match], vocab: Vocabulary, avoid: set[str]) -> list[Unit]:
    units: list[Unit] = []
    for m in matches:
        tags = m.tags
        if m.negated:
            # "not a target" is a non-target; "no feedback", "without a cue": absent, so untagged.
            tags = tuple(ANTONYMS[t] for t in m.tags if t in ANTONYMS)
        for tag in tags:
            allowed = _allowed(vocab, tag, avoid)
            if allowed is not None:
                units.append(Unit(allowed, kind_of(vocab, allowed), m.first, m.last, m.term))
    return units


# Attention limited to one thing ("attend only to", "focus solely on") is selective attention.
_RESTRICTIVE = frozenset({"only", "exclusively", "solely"})
_ATTENDING = frozenset({"Attend-to", "Focused-attention"})


def _restrict_attention(units: list[Unit], tokens: list[Token], vocab: Vocabulary) -> None:
    for u in units:
        beside = [tokens[i].text for i in (u.first - 1, u.last + 1) if 0 <= i < len(tokens)]
        if u.tag in _ATTENDING and _RESTRICTIVE & set(beside) and "Selective-attention" in vocab:
            u.tag, u.kind = "Selective-attention", kind_of(vocab, "Selective-attention")


# Words that present something: negated ("the probe was not shown"), nothing is presented.
_PRESENTING = frozenset({"Sensory-event"})
_PREPOSITIONS = frozenset({"in", "during", "for", "under", "at", "on", "after", "before", "within", "across",
                           "throughout", "between", "of", "from", "to", "with", "by"})


def _withheld(matches: list[Match]) -> bool:
    return any(m.negated and _PRESENTING & set(m.tags) for m in matches)


def _attributive(u: Unit, tokens: list[Token]) -> bool:
    """"the attended ear", "the pressed key": an action's participle naming which thing, not an act."""
    return u.kind == "action" and attributive(tokens, u.first, u.last)


def _defines_condition(units: list[Unit], tokens: list[Token]) -> bool:
    """"Experimental condition in which ...", "The easy condition": the description's subject is a condition.

    A condition named in a prepositional phrase ("in the easy condition, a dot appears") is where
    the event told of happens.
    """
    head = next((u for u in units if u.kind not in {"attribute", "state"}), None)
    if head is None or head.tag != "Condition-variable":
        return False
    if any(t.text in BOUNDARY_WORDS or t.norm in BOUNDARY_WORDS for t in tokens):
        return False  # "the condition starts": a boundary of the condition is an event
    return not any(t.text in _PREPOSITIONS or t.is_break for t in tokens[: head.first])


def _left_open(either: range, matches: list[Match]) -> frozenset[int]:
    """Tokens of "either A or B" through the end of B's first phrase ("the lower right corner")."""
    if not either:
        return frozenset()
    end = max([either.stop - 1, *(m.last for m in matches if m.first in either)])
    return frozenset(range(either.start - 1, end + 1))


def _uncovered(vocab: Vocabulary, tokens: list[Token], matches: list[Match], units: list[Unit],
               present: set[str], structural: bool, purpose: range) -> tuple[str, ...]:
    """Content words that no emitted tag stands for (negated words are deliberately left out)."""
    covered_idx = {i for u in units if u.tag.split("/")[0].lower() in present or u.tag in IMPLICIT_TAGS
                   for i in range(u.first, u.last + 1)}
    negated_idx = {i for m in matches if m.negated for i in range(m.first, m.last + 1)}
    either = alternatives(tokens)
    negated_idx |= {i for m in matches if leaves_open(vocab, m.tags, m.first, either)
                    for i in range(m.first, m.last + 1)}
    out: list[str] = []
    for t in tokens:
        if (not t.is_content or t.index in covered_idx or t.index in negated_idx or t.index in purpose
                or t.text in out):
            continue  # what a purpose clause marks is deliberately not annotated as happening
        if structural and ({t.text, t.norm} & (BOUNDARY_WORDS | STRUCTURE_NOUNS)):
            continue  # "start of the block": the event type itself says it
        if t.text in FIXATION_WORDS and "computer-screen" in present:
            continue  # "left of fixation" was placed on the screen
        if {t.text, t.norm} & ORDER_VERBS:
            continue  # "a tone follows the cue": the order of events, which a row's onset already says
        out.append(t.text)
    return tuple(out)


def _found_units(lex: Lexicon, description: str, tokens: list[Token], matches: list[Match], lemmas: set[str],
                 avoid: set[str]) -> list[Unit]:
    """A unit per matched phrase and per quantity with a value tag, in the description's order."""
    vocab = lex.vocab
    units = _units(matches, vocab, avoid)
    for q in find_quantities(description, tokens):
        unit = _value_unit(q, lex, lemmas, tokens)
        if unit is not None and unit.tag.split("/")[0].lower() not in avoid:
            unit.term = description[q.start : q.end]
            units.append(unit)
    units.sort(key=lambda u: (u.first, u.last))
    _restrict_attention(units, tokens, vocab)
    return units


def _said_to_happen(units: list[Unit], tokens: list[Token], vocab: Vocabulary, purpose: range,
                    either: range) -> list[Unit]:
    """The units that tell of this event, without the words that only qualify or leave something open.

    "within 2 s", "within 3 m of": a bound on time or distance, not a place inside something;
    "turns red": becoming, not turning round; "the pressed key": which thing, not an act.
    "shown to mark the end of the block": what the purpose clause marks does not happen in this event;
    "either A or B": neither is said to hold.
    """
    bounds = {u.first for u in units if "/" in u.tag}
    states = {u.first for u in units if u.kind == "attribute"}
    units = [u for u in units if not (u.tag == "Within" and u.last + 1 in bounds)
             and not (u.tag == "Turn" and u.last + 1 in states) and not _attributive(u, tokens)]
    units = [u for u in units if u.first not in purpose or u.tag in PURPOSE_TAGS]
    order = [u for u in units if orders_in_time(u, units, tokens, vocab)]
    other = {i for u in order for i in other_event(u, tokens)}
    units = [u for u in units if u not in order and u.first not in other]
    return [u for u in units if not leaves_open(vocab, [u.tag], u.first, either)]


def _covered(units: list[Unit], present: set[str]) -> dict[str, str]:
    """Each term of the description that an emitted tag stands for, with that tag (the first one)."""
    covered: dict[str, str] = {}
    for u in units:
        if u.tag.split("/")[0].lower() in present and u.term:
            covered.setdefault(u.term, u.tag)
    return covered


def annotate_with(lex: Lexicon, description: str, avoid: set[str], no_extend: bool) -> OfflineResult:
    """One description as one event (or a presentation with its action): units found, composed, repaired."""
    vocab = lex.vocab
    tokens = lex.tokens(description)
    matches = lex.match(tokens)
    lemmas = {t.norm for t in tokens} | {t.text for t in tokens}
    purpose = purpose_span(tokens)
    either = alternatives(tokens)
    units = _said_to_happen(_found_units(lex, description, tokens, matches, lemmas, avoid), tokens, vocab,
                            purpose, either)

    durations = [u for u in units if u.kind == "duration"]
    body = [u for u in units if u.kind != "duration"]
    matched = {i for m in matches for i in range(m.first, m.last + 1)}
    composer = Composer(vocab, [t.text for t in tokens], [t.index for t in tokens if t.is_break], matched,
                        withheld=_withheld(matches), condition=_defines_condition(units, tokens), marks=bool(purpose),
                        silent=_left_open(either, matches))
    elements = composer.compose(body, lemmas, durations)
    texts = _drop_redundant(_serialize(elements))
    annotation = repair(", ".join(texts) or FALLBACK, vocab, avoid, no_extend) or FALLBACK

    present = {t.split("/")[0].strip().lower() for t in re.split(r"[,()]", annotation) if t.strip()}
    structural = bool(present & {"experiment-control", "experiment-structure"})
    return OfflineResult(annotation, _covered(units, present),
                         _uncovered(vocab, tokens, matches, units, present, structural, purpose))


def _event_segments(lex: Lexicon, description: str, avoid: set[str],
                    no_extend: bool) -> list[tuple[str, OfflineResult]]:
    """One (text, annotation) per event when sentences tell of separate events, else []."""
    sentences = split_sentences(description)
    if len(sentences) < 2:
        return []
    # A narrative repeats itself ("the participant presses the button"): annotate each text once.
    done: dict[str, OfflineResult] = {}

    def annotated(text: str) -> OfflineResult:
        if text not in done:
            done[text] = annotate_with(lex, text, avoid, no_extend)
        return done[text]

    segments: list[list[str]] = []
    leading: list[str] = []  # sentences before the first event belong to it
    for sentence in sentences:
        if has_event(annotated(sentence).annotation):
            segments.append([*leading, sentence])
            leading = []
        elif segments:
            segments[-1].append(sentence)  # "A face appears. It is red.": still the same event
        else:
            leading.append(sentence)
    if len(segments) < 2:
        return []
    texts = [" ".join(parts) for parts in segments]
    return [(text, annotated(text)) for text in texts]


def _annotate_events(lex: Lexicon, segments: list[tuple[str, OfflineResult]], avoid: set[str],
                     no_extend: bool) -> OfflineResult | None:
    """The events side by side, one top-level group each; None if that cannot be made valid."""
    groups: Tree = []
    covered: dict[str, str] = {}
    uncovered: list[str] = []
    for _, result in segments:
        groups.extend(event_group(result.annotation))
        for term, tag in result.covered.items():
            covered.setdefault(term, tag)
        uncovered.extend(w for w in result.uncovered if w not in uncovered)
    text = serialize(dedupe(groups))
    annotation = repair(text, lex.vocab, avoid, no_extend)
    if not annotation or len(parse(annotation)) < 2:
        return None
    return OfflineResult(annotation, covered, tuple(uncovered), tuple(t for t, _ in segments))


def annotate_offline(
    description: str,
    *,
    schema_version: str = DEFAULT_SCHEMA_VERSION,
    no_extend: bool = False,
    avoid: Collection[str] = (),
) -> OfflineResult:
    """Annotate *description* with the lexicon and the schema alone; always returns valid HED.

    A description whose sentences tell of separate events gets one top-level group per event
    (their texts in ``events``), never one blob of every tag.

    The annotator never extends the schema (what it cannot name stays in ``uncovered``), so
    ``no_extend`` holds by construction; it is still enforced on the final string. Tags in
    *avoid* are replaced by their parent where that still says something, else left out.
    """
    vocab = get_vocabulary(schema_version)
    avoid_set: set[str] = set()
    for name in avoid:
        info = vocab.get(name)
        avoid_set.add((info.name if info else name.split("/")[0]).lower())
    lex = get_lexicon(vocab)
    description = asserted_text(description, lex.verbs)
    segments = _event_segments(lex, description, avoid_set, no_extend)
    if segments:
        result = _annotate_events(lex, segments, avoid_set, no_extend)
        if result is not None:
            return result
        logger.info("could not annotate %d events apart; annotating the description as one", len(segments))
    return annotate_with(lex, description, avoid_set, no_extend)


def find_events(description: str, *, schema_version: str = DEFAULT_SCHEMA_VERSION) -> tuple[str, ...]:
    """The text of each event when *description* tells of several; () for one event."""
    lex = get_lexicon(get_vocabulary(schema_version))
    return tuple(text for text, _ in _event_segments(lex, description, set(), False))
