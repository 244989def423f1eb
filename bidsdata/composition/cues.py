"""What plain English words in a level's name and description say about its event.

General knowledge of how experiments are described, nothing about any one dataset: words that name a
sense (a tone is heard), a role in the task (a cue, feedback), an action (a press), or the start and end
of something that lasts (a block starts, a block ends). The words and the tags they point to are data in
:mod:`agents.conventions`, shared with the marker reader and the offline annotator; words are compared by
their base forms, so "pressed" is a press and "heard" is hearing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from agents import conventions
from agents.conventions import CUE, END, FEEDBACK, INSTRUCTION, RESPONSE, START, said, words

__all__ = ["END", "NUMBER", "START", "action", "bound", "is_response", "label_words", "media_senses", "modality",
           "senses", "stimulus_role", "words"]

NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
_DEFAULT_SENSE = "Visual-presentation"
# "Presented", "shown" and the like are said of anything shown or played: a word of another sense counts double.
_OTHER_SENSE_WEIGHT = 2
# Words that say a response happened without saying how: the usual way is a press.
_DEFAULT_ACTION = "Press"


def modality(text_words: list[str], default: str = _DEFAULT_SENSE) -> str:
    """The presentation tag the words point to; *default* when they name no sense."""
    scores = {tag: len(said(text_words, listed)) * (1 if tag == _DEFAULT_SENSE else _OTHER_SENSE_WEIGHT)
              for tag, listed in conventions.sense_words().items()}
    best = max(scores, key=lambda tag: (scores[tag], tag == _DEFAULT_SENSE))
    return best if scores[best] else default


_LABEL_WORD = 5
"""Shortest sense word looked for inside a task label ("ear" would be found in "yearly")."""


def label_words(label: str) -> list[str]:
    """The sense words inside a BIDS task label, whose letters run together by the standard
    (``auditoryoddball`` -> ``auditory``): each known sense word of five letters or more found in it."""
    text = label.lower()
    every = frozenset().union(*conventions.sense_words().values())
    return [w for w in sorted(every) if len(w) >= _LABEL_WORD and w in text]


def media_senses(rows: Iterable[Mapping[str, str]]) -> Counter[str]:
    """Sense -> how many distinct stimulus files of that kind the rows name (``a.wav`` is heard, ``b.png``
    seen), by the file's extension (:data:`agents.conventions.MEDIA_EXTENSIONS`)."""
    seen: dict[str, str] = {}
    for row in rows:
        for value in row.values():
            if isinstance(value, str) and "." in value and value not in seen:
                sense = conventions.MEDIA_EXTENSIONS.get(value[value.rfind("."):].lower())
                if sense:
                    seen[value] = sense
    return Counter(seen.values())


def senses(text_words: list[str]) -> int:
    """How many of the words name something sensed (seen, heard, felt...)."""
    every = frozenset().union(*conventions.sense_words().values())
    return len(said(text_words, every))


def is_response(text_words: list[str]) -> bool:
    """Whether the words tell of the participant acting (a press, a choice) more than of something sensed."""
    response = len(said(text_words, RESPONSE | conventions.action_words().keys()))
    return response > 0 and response >= senses(text_words)


def stimulus_role(text_words: list[str]) -> str:
    if said(text_words, CUE):
        return "Cue"
    if said(text_words, FEEDBACK):
        return "Feedback"
    if said(text_words, INSTRUCTION):
        return "Instructional"
    return "Experimental-stimulus"


def action(text_words: list[str]) -> str:
    """An action tag for a participant's response: an action the schema names first ("release the button" is
    a Release), then a device's ("button": Press), else a press for a response said without its action."""
    actions = conventions.action_words()
    found = [(b, actions[b]) for w in text_words for b in sorted(conventions.forms(w)) if b in actions]
    named = [tag for b, tag in found if b == tag.lower() and tag != "Respond"]
    other = [tag for _, tag in found if tag != "Respond"]
    if named or other:
        return (named or other)[0]
    return _DEFAULT_ACTION if said(text_words, RESPONSE) else "Perform"


def bound(text_words: list[str]) -> str | None:
    """``start`` or ``end`` when the words mark the beginning or the end of something that lasts."""
    starts, ends = bool(said(text_words, START)), bool(said(text_words, END))
    if starts == ends:
        return None
    return "start" if starts else "end"
