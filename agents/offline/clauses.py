"""Spans of a sentence whose words are not asserted of the event it tells of.

Purpose clauses: "a circle is shown *to mark the end of the block*". An infinitive of a signalling
verb after what an event does says what the event is for, not what happens in it. Two consequences
follow from English and from HED's task roles:

- the event is a signal, so its task role is ``Cue`` (HED's curators write ``(Intended-effect, Cue)``),
  not ``Experimental-stimulus``;
- what the clause marks is not happening now: "to mark the start of blink inhibition" tells of a
  period in which the participant must not blink, not of a blink, and "to signal that the participant
  should respond" of a response still to come. Words inside the clause therefore give no action, no
  agent, no response, no item presented and no part of the experiment's timeline.

Order in time: "a tone follows *the cue*" tells of another event's thing (:func:`other_event`), and "follows"
there tracks nothing (:func:`orders_in_time`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.offline.text import ARTICLES, Token

if TYPE_CHECKING:
    from agents.offline.units import Unit
    from agents.vocabulary import Vocabulary

# Verbs whose purpose is to make something known: "to mark", "to signal", "to indicate", ...
MARKING_VERBS = frozenset({"mark", "signal", "indicate", "announce", "signify", "denote", "herald", "notify",
                           "cue", "flag"})
# Tags a purpose clause itself stands for: they say what the event is for, so they stay. HED's
# indication roles name an act by what it indicates ("presses a key to indicate being ready"). The
# verb "signal" is no Cue of its own: a presentation that signals is one, an answer that signals is not.
PURPOSE_TAGS = frozenset({"Intended-effect", "Ready-indication", "Done-indication"})
# "to mark", "in order to mark", "so as to mark": the infinitive marker.
_INFINITIVE = "to"


def purpose_span(tokens: list[Token]) -> range:
    """Token indices of the purpose clause ("to mark ..." up to the end of its sentence), or an empty range.

    Only an infinitive with a signalling verb counts: "moves to the left" has no verb after "to",
    "presses a key to continue" is a purpose, but not one of marking something.
    """
    for i, token in enumerate(tokens[:-1]):
        # A fronted clause ("To mark the start, a tone sounds") has no end the tokens show (commas are
        # not tokens), so it would swallow the event itself: only a clause after the event counts.
        if token.text != _INFINITIVE or i == 0:
            continue
        # An infinitive is the verb's base form, maybe after one adverb ("to clearly mark").
        following = tokens[i + 1 : i + 3]
        verb = following[1] if following[0].text.endswith("ly") and len(following) > 1 else following[0]
        if verb.text not in MARKING_VERBS:
            continue
        end = next((t.index for t in tokens[verb.index + 1 :] if t.is_break), len(tokens))
        return range(i, end)
    return range(0)


# How far apart "either" and its "or" may be: two short noun phrases ("either the upper left or ...").
_EITHER_REACH = 5
# Where something is or goes: what alternatives leave open ("from either side", "either left or right").
PLACE_ANCESTORS = ("Spatial-relation", "Directional-relation", "Categorical-location-value",
                   "Categorical-orientation-value")


def alternatives(tokens: list[Token]) -> range:
    """Token indices of "either A or B" from A to the first word of B, or an empty range.

    Tags are looked up at the words where they start, so the first word of B is enough: "either
    the left or right side of the lane" covers "left" and "right side of", not "lane".
    """
    for i, token in enumerate(tokens):
        if token.text != "either":
            continue
        for j in range(i + 2, min(len(tokens), i + 2 + _EITHER_REACH)):
            if tokens[j].is_break:
                break
            if tokens[j].text == "or":
                second = next((t.index for t in tokens[j + 1 :] if t.text not in ARTICLES), None)
                if second is not None and not tokens[second].is_break:
                    return range(i + 1, second + 1)
                break
    return range(0)


def leaves_open(vocab: Vocabulary, tags: tuple[str, ...] | list[str], first: int, either: range) -> bool:
    """True if tags starting at token *first* name a place that "either ... or" leaves open."""
    return first in either and bool(tags) and all(
        any(vocab.is_under(t, a) for a in PLACE_ANCESTORS) for t in tags)


# Verbs that order events when a thing is their subject ("a tone follows the cue") and track something
# only when someone or their eyes do it ("the participant follows the dot").
ORDER_VERBS = frozenset({"follow", "succeed", "precede"})
_PERSONAL = frozenset({"i", "we", "you", "he", "she", "they", "who"})


# Words that end the noun phrase after an order verb ("follows the cue *after* 2 s", "*and* the participant ...").
_PHRASE_ENDS = frozenset({"after", "before", "by", "with", "in", "at", "on", "and", "but", "while", "when", "then",
                          "so", "or", "during", "within", "for", "which", "that"})
_OBJECT_REACH = 5


def other_event(verb: Unit, tokens: list[Token]) -> range:
    """Token indices of the noun phrase an order verb points to ("follows *the red cue*"): another event's
    thing, presented before or after this one, not in it."""
    end = verb.last + 1
    while end < len(tokens) and end - verb.last <= _OBJECT_REACH and not tokens[end].is_break \
            and tokens[end].text not in _PHRASE_ENDS:
        end += 1
    return range(verb.last + 1, end)


def orders_in_time(u: Unit, units: list[Unit], tokens: list[Token], vocab: Vocabulary) -> bool:
    """True if *u* is an order verb whose subject is a thing: the sentence says which event comes first.

    The subject is what its clause names before the verb: an agent, a body part or a personal pronoun
    follows something with the eyes; a stimulus, a pause or a signal merely comes after something.
    With nothing named before it ("follow the dot") the verb is an instruction to someone.
    """
    if u.kind != "action" or not ({tokens[u.first].norm, tokens[u.first].text} & ORDER_VERBS):
        return False
    start = next((t.index + 1 for t in reversed(tokens[: u.first]) if t.is_break), 0)
    subject = [v for v in units if start <= v.first and v.last < u.first]
    if any(t.text in _PERSONAL for t in tokens[start : u.first]):
        return False
    if any(v.kind == "agent" or vocab.is_under(v.tag, "Agent") or vocab.is_under(v.tag, "Anatomical-item")
           for v in subject):
        return False
    return any(v.kind in ("item", "role", "marker", "event", "org") or "/" in v.tag for v in subject)
