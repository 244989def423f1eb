"""Clauses whose words are not asserted of the event, and the word senses added with them (issue 19).

Every description is written for these tests (none is a row of the development set): a purpose
clause makes a shown or played thing a cue and tells of nothing happening now; "either ... or"
leaves a place open; a condition has no event role; a response made with both keys is
indeterminate; a light verb with an action noun tells of an act done; not blinking on purpose is
Inhibit-blinks.
"""

from __future__ import annotations

import pytest

from agents.hedstring import parse_groups
from agents.offline import annotate_offline, assess_coverage
from agents.offline.clauses import purpose_span
from agents.offline.lexicon import get_lexicon
from agents.vocabulary import get_vocabulary
from tests.support.offline import annotate, event_checker_issues, flat, tags


class TestPurposeClause:
    @pytest.mark.parametrize("description", [
        "A green square is shown to mark the start of the block.",
        "A short tone is played to signal the end of the practice run.",
        "A yellow star appears to announce the next set of trials.",
        "Show a blue triangle in order to indicate that the rest period is over.",
    ])
    def test_what_is_shown_or_played_to_mark_something_is_a_cue(self, description: str) -> None:
        annotation = annotate(description)
        assert "(Intended-effect, Cue)" in annotation
        found = tags(description)
        assert "Experimental-stimulus" not in found
        assert "Sensory-event" in found
        assert event_checker_issues(annotation) == []  # a cue is the sensory event's task role

    def test_what_a_purpose_clause_marks_does_not_happen_in_this_event(self) -> None:
        # "blink inhibition" is a period without blinks, announced here: no blink, no action, no agent.
        found = tags("A red disc is displayed to mark the start of blink inhibition.")
        assert not {"Blink", "Inhibit-blinks", "Agent-action", "Experiment-participant"} & set(found)
        # A response still to come is not made now.
        found = tags("An orange cross appears to signal that the subject should press a key.")
        assert not {"Participant-response", "Agent-action", "Press", "Keyboard-key"} & set(found)
        assert "Cue" in found
        # Nor is a thing the clause names presented now.
        assert "Face" not in tags("A beep is played to announce the face that follows.")

    def test_an_act_done_for_a_purpose_stays_the_participants_response(self) -> None:
        found = tags("The volunteer presses the space bar to signal that she is done.")
        assert {"Agent-action", "Participant-response", "Press", "Done-indication"} <= set(found)
        assert "Cue" not in found and "Sensory-event" not in found
        assert "Ready-indication" in tags("The subject taps the pad to indicate being ready.")

    def test_only_an_infinitive_of_a_signalling_verb_is_a_purpose_clause(self) -> None:
        lex = get_lexicon(get_vocabulary("8.4.0"))
        assert purpose_span(lex.tokens("The dot moves to the left.")) == range(0)
        assert purpose_span(lex.tokens("Press the key to continue.")) == range(0)
        tokens = lex.tokens("A beep sounds to clearly mark the onset. Then a face appears.")
        span = purpose_span(tokens)
        assert [tokens[i].text for i in span] == ["to", "clearly", "mark", "the", "onset"]

    def test_words_of_a_purpose_clause_are_not_reported_as_left_out(self) -> None:
        description = "A white circle is flashed to mark the end of the response window."
        annotation = annotate(description)
        coverage = assess_coverage(description, annotation)
        assert coverage.uncovered == () and coverage.unknown == ()
        assert annotate_offline(description).uncovered == ()


class TestAlternatives:
    def test_either_or_leaves_the_place_open(self) -> None:
        found = tags("A small dot appears on either the left or the right side of the screen.")
        assert not {"Left", "Right", "Left-side-of", "Right-side-of"} & set(found)
        assert {"Sensory-event", "Dots"} <= set(found)

    def test_the_thing_after_the_alternatives_still_takes_its_action(self) -> None:
        annotation = annotate("The subject presses either the upper or the lower button with the thumb.")
        assert "(Press, Push-button, Thumb)" in annotation

    def test_a_place_said_outright_stays(self) -> None:
        assert "Left-side-of" in tags("A small dot appears on the left side of the screen.")

    def test_places_left_open_are_not_reported_as_left_out(self) -> None:
        description = "A bar slides in from either the top or the bottom edge."
        assert assess_coverage(description, annotate(description)).uncovered == ()


class TestConditionsAndResponses:
    def test_a_condition_has_no_event_role(self) -> None:
        description = "A condition in which the subject switches tasks as the instructions say."
        found = tags(description)
        assert "Condition-variable" in found
        assert not {"Instructional", "Experimental-stimulus", "Participant-response", "Cue"} & set(found)
        assert assess_coverage(description, annotate(description)).uncovered == ()

    def test_a_press_of_both_keys_is_an_indeterminate_action(self) -> None:
        annotation = annotate("The subject presses both buttons at the same time.")
        found = flat(parse_groups(annotation))
        assert {"Agent-action", "Indeterminate-action", "Press"} <= set(found)
        assert "Participant-response" not in found
        assert event_checker_issues(annotation) == []  # an action role is an Agent-action's role
        # A press with both hands, or both keys pressed for a purpose of its own, is no such thing.
        assert "Indeterminate-action" not in tags("The subject presses the key with both hands.")
        assert "Indeterminate-action" not in tags("Press both keys to continue.")

    @pytest.mark.parametrize("description", [
        "The participant gives a detection of the tone.",
        "The subject makes a quick decision.",
    ])
    def test_a_light_verb_with_an_action_noun_is_an_act_done(self, description: str) -> None:
        found = tags(description)
        assert {"Agent-action", "Participant-response"} <= set(found)
        assert event_checker_issues(annotate(description)) == []

    def test_not_blinking_on_purpose_is_inhibit_blinks(self) -> None:
        found = tags("The blink suppression period starts.")
        assert "Inhibit-blinks" in found and "Blink" not in found
        assert "Inhibit-blinks" in tags("The participant should avoid blinking until the tone.")


@pytest.mark.parametrize(("description", "first"), [
    ("The participant raised the left hand and the tablet predicted the right hand.", "Lift"),
    ("The participant pressed the key with the left thumb while the robot lifted its right thumb.", "Press"),
])
def test_a_body_part_after_a_second_action_is_not_the_first_actions(description, first):
    groups = parse_groups(annotate_offline(description).annotation)
    firsts = [g for g in groups if isinstance(g, list) and first in flat(g)]
    assert firsts, groups
    assert all(len([t for t in flat(g) if t in {"Thumb", "Hand"}]) == 1 for g in firsts), \
        f"one limb in the {first} group, the other belongs to the action that follows: {groups}"


class TestAPersonActing:
    @pytest.mark.parametrize("description", [
        "The rider corrects the position of the bicycle.",
        "The participant starts correcting the cursor position.",
    ])
    def test_an_action_role_said_as_the_persons_verb_is_an_act_done(self, description: str) -> None:
        found = tags(description)
        assert {"Agent-action", "Participant-response", "Correction"} <= set(found)
        assert "Sensory-event" not in found

    @pytest.mark.parametrize("description", [
        "The participant's answer was wrong.",
        "The correction of the cursor position is complete.",
    ])
    def test_a_judgement_or_the_noun_is_no_act(self, description: str) -> None:
        assert "Agent-action" not in tags(description)

    def test_a_vehicle_that_moves_is_operated_by_its_driver(self) -> None:
        assert {"Agent-action", "Operate", "Move"} <= set(tags("The bicycle moves forward."))
        assert "Operate" not in tags("A ball rolls across the screen.")  # a thing moving is seen, not driven
        assert "Operate" not in tags("The participant moves the cursor.")
