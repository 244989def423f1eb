"""What a description asserts (agents/offline/asserted.py): an instruction or a negated word in a level's
description adds no tag to the level's annotation. All descriptions are made up."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agents.offline.annotator import annotate_offline
from agents.offline.asserted import asserted_text

# Levels as labs describe them: a thing shown or heard, an act of the participant, a part of the run.
LEVELS = [
    "A picture of a house is shown.",
    "A red circle appears left of fixation.",
    "A short high tone is played.",
    "The participant presses the left button.",
    "A face is shown in the centre of the screen.",
    "A green arrow pointing right appears.",
    "The block of trials begins.",
    "A word is shown on the screen.",
    "A car appears on the road ahead.",
    "The participant says the name aloud.",
]
VERBS = ["Press", "Respond", "Indicate", "Decide", "Count", "Look at", "Remember", "Choose", "Report", "Imagine"]
OBJECTS = ["the key", "a button", "the number of tones", "whether the picture is new", "the colour of the word",
           "which side the face is on", "the cross in the middle", "as quickly as possible"]
SUBJECTS = ["Participants are asked to", "The participant must", "Subjects were instructed to", "You should"]
ABSENT = ["a tone", "feedback", "a sound", "a second picture", "a reward", "a cue", "a star", "speech"]


def tags(annotation: str) -> set[str]:
    return {t.strip().split("/")[0] for t in re.split(r"[(),]", annotation) if t.strip()}


def read(description: str) -> set[str]:
    return tags(annotate_offline(description).annotation)


instructions = st.one_of(
    st.builds(lambda v, o: f"{v} {o}.", st.sampled_from(VERBS), st.sampled_from(OBJECTS)),
    st.builds(lambda s, v, o: f"{s} {v.lower()} {o}.", st.sampled_from(SUBJECTS), st.sampled_from(VERBS),
              st.sampled_from(OBJECTS)),
)
negations = st.one_of(
    st.builds(lambda t: f"No {t} is given.", st.sampled_from(ABSENT)),
    st.builds(lambda t: f"There is no {t}.", st.sampled_from(ABSENT)),
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LEVELS), instructions)
def test_an_instruction_adds_no_tag(level: str, instruction: str) -> None:
    assert read(f"{level} {instruction}") <= read(level)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LEVELS), negations)
def test_a_negated_thing_adds_no_tag(level: str, negation: str) -> None:
    assert read(f"{level} {negation}") <= read(level)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LEVELS), st.sampled_from(ABSENT))
def test_a_thing_said_to_be_absent_in_the_same_sentence_adds_no_tag(level: str, absent: str) -> None:
    assert read(f"{level.rstrip('.')}, without {absent}.") <= read(level)
    assert read(f"{level.rstrip('.')}; no {absent} is played.") <= read(level)


def test_only_an_instruction_or_only_a_negation_is_read_as_written() -> None:
    assert asserted_text("Press the left key.", {"press"}) == "Press the left key."
    assert asserted_text("No response.", {"press"}) == "No response."
    assert "Press" in read("Press the left key.")


def test_a_noun_after_the_first_word_is_no_order() -> None:
    assert asserted_text("Rest period begins. A tone sounds.", {"rest"}) == "Rest period begins. A tone sounds."


def test_a_thing_that_acts_is_seen_not_the_participant() -> None:
    assert "Experiment-participant" not in read("A dog walks across the screen.")
    assert "Sensory-event" in read("A dog walks across the screen.")
    # A person, or a vehicle someone drives, may be the participant acting.
    assert "Agent-action" in read("The participant walks to the door.")


def test_a_heading_word_before_a_colon_is_no_order() -> None:
    text = "Target: a red circle. The trial ends."
    assert asserted_text(text, {"target"}) == text
