"""The offline annotator follows HED's annotation conventions and English word sense.

One test per convention or word-sense rule; every description is written for these tests (none is
a row of the development set), so they pin down general behaviour, not particular sentences.
"""

from __future__ import annotations

import pytest

from agents.hedstring import parse_groups
from agents.offline import assess_coverage
from agents.offline.events import EVENT_TYPES
from agents.offline.text import lemma_candidates
from tests.support.offline import annotate, event_checker_issues, flat, tags


class TestEventConventions:
    def test_exactly_one_event_type_per_event(self) -> None:
        for description in ["A blue star flashes at the start of the block.", "The headset beeps.",
                            "The experimenter resumes the recording at the start of the session."]:
            assert len([t for t in tags(description) if t in EVENT_TYPES]) == 1, description
        # A sentence that shows something and tells of an answer holds two events, one group each.
        annotation = annotate("A yellow square appears and the subject presses the right button.")
        groups = parse_groups(annotation)
        assert len(groups) == 2
        assert [[t for t in flat(g) if t in EVENT_TYPES] for g in groups] == [["Sensory-event"], ["Agent-action"]]
        assert event_checker_issues(annotation) == []

    def test_a_statement_about_an_outcome_has_no_event_type_or_inferred_role(self) -> None:
        for description, outcome in [("The answer was wrong.", "Incorrect-action"),
                                     ("The listener failed to respond in time.", "Omitted-action")]:
            found = tags(description)
            assert outcome in found
            assert not set(found) & EVENT_TYPES, description
            assert "Experimental-stimulus" not in found and "Agent-action" not in found

    @pytest.mark.parametrize(("description", "role"), [
        ("A photograph of a mountain is displayed.", "Experimental-stimulus"),
        ("A 300 Hz tone is played.", "Experimental-stimulus"),
        ("The volunteer presses the space bar.", "Participant-response"),
        ("The subject clenches the left fist.", "Participant-response"),
        ("A warning cue appears.", "Cue"),
        ("A smiley is shown as feedback.", "Feedback"),
        ("Instructions are displayed.", "Instructional"),
    ])
    def test_every_task_event_has_a_task_role(self, description: str, role: str) -> None:
        annotation = annotate(description)
        assert role in flat(parse_groups(annotation))
        assert event_checker_issues(annotation) == []  # hedtools agrees: a type, a role, a modality, an action

    def test_a_role_said_replaces_the_default_stimulus_role(self) -> None:
        assert "Experimental-stimulus" not in tags("A smiley is shown as feedback.")

    def test_what_a_screen_shows_is_visual_presentation_on_the_computer_screen(self) -> None:
        for description in ["A checkerboard pattern is displayed.", "The letter K appears in the center."]:
            assert "(Visual-presentation, Computer-screen)" in annotate(description), description
        # Heard words and tones are not on a screen.
        for description in ["The word 'apple' is spoken through headphones.", "A 440 Hz tone is played."]:
            assert "Computer-screen" not in tags(description), description


class TestOneRoleAndOneAgent:
    def test_a_cue_or_feedback_is_the_events_role_not_the_stimulus_or_response_it_speaks_of(self) -> None:
        found = tags("Feedback on the previous response is shown.")
        assert "Feedback" in found and "Participant-response" not in found
        found = tags("A cue tells the volunteer which stimuli to count.")
        assert "Cue" in found and "Experimental-stimulus" not in found

    def test_participant_response_says_who_acted(self) -> None:
        annotation = annotate("The volunteer presses the space bar.")
        assert "(Press, Keyboard-key)" in annotation and "Participant-response" in annotation
        assert "Experiment-participant" not in annotation
        assert event_checker_issues(annotation) == []

    def test_the_participant_is_an_agent_only_of_an_act_in_this_event(self) -> None:
        found = tags("Indicates the subject should blink.")  # asked for, not done
        assert "Blink" in found and "Experiment-participant" not in found and "Agent-action" not in found

    def test_a_condition_is_not_an_event(self) -> None:
        found = tags("A condition in which subjects listen to music.")
        assert "Condition-variable" in found and not set(found) & EVENT_TYPES
        # A condition named as the setting of an event leaves the event as it is.
        assert "Sensory-event" in tags("In the hard condition, a blue circle appears.")

    def test_a_mishap_is_an_events_role_not_a_judgement(self) -> None:
        assert {"Experiment-control", "Mishap"} <= set(tags("The amplifier malfunctions."))
        found = tags("The subject accidentally presses the key.")
        assert "Mishap" in found and "Agent-action" in found and "Participant-response" not in found
        # With nobody named, the machinery acts: the recording stopping is no agent's action.
        found = tags("The recording stops.")
        assert "Experiment-control" in found and "Agent-action" not in found

    def test_an_action_naming_a_part_of_the_experiment_is_not_done_now(self) -> None:
        found = tags("The rest period ends.")
        assert "Experiment-structure" in found and "Agent-action" not in found
        assert "Agent-action" in tags("The subject rests.")


class TestStimulusRoles:
    def test_something_that_is_not_a_target_is_a_non_target(self) -> None:
        found = tags("The digit is not a target.")
        assert "Non-target" in found and "Target" not in found

    def test_an_arrow_telling_which_button_to_press_is_a_go_signal(self) -> None:
        annotation = annotate("An arrow appears, telling the subject which button to press.")
        found = flat(parse_groups(annotation))
        assert "Go-signal" in found and "Sensory-event" in found
        assert "Agent-action" not in found and "Participant-response" not in found  # nobody has pressed yet

    def test_a_probe_is_not_a_query(self) -> None:
        assert "Query" not in tags("A probe digit is shown.")

    def test_a_stimulus_role_word_in_a_judged_response_names_what_was_answered(self) -> None:
        found = tags("The subject gives a wrong answer to the target.")
        assert "Incorrect-action" in found and "Target" not in found


class TestSpaceAndDirection:
    @pytest.mark.parametrize(("description", "direction"), [
        ("A left-pointing arrow is shown.", "Leftward"),
        ("An arrow pointing to the right appears.", "Rightward"),
        ("A left arrow appears.", "Leftward"),
        ("A chevron facing left is displayed.", "Leftward"),
    ])
    def test_where_something_points_is_a_direction(self, description: str, direction: str) -> None:
        found = tags(description)
        assert direction in found and "Left" not in found and "Point" not in found

    def test_to_left_of_an_object_versus_left_side_of_the_screen(self) -> None:
        assert "(To-left-of, (Star, Yellow))" in annotate("A blue triangle appears to the left of a yellow star.")
        assert "(Left-side-of, Computer-screen)" in annotate("A blue triangle appears on the left side of the screen.")


class TestBodyAndAction:
    def test_a_body_part_without_a_tag_is_tagged_as_its_whole(self) -> None:
        assert "(Hand, Left)" in annotate("The subject clenches the left fist.")
        assert "Hand" in tags("A knuckle touches the plate.")

    def test_an_imagined_movement_is_an_imagined_action(self) -> None:
        found = tags("The subject imagines lifting the right foot.")
        assert {"Imagined-action", "Lift", "Foot"} <= set(found)
        assert "Imagine" not in found and "Participant-response" not in found  # nothing was carried out

    def test_attention_limited_to_one_thing_is_selective(self) -> None:
        assert "Selective-attention" in tags("Subjects attend solely to the tones in the right ear.")
        assert "Selective-attention" not in tags("Subjects attend to the tones.")


class TestWordsCuratorsLeaveOut:
    def test_followed_by_orders_events_and_does_not_track(self) -> None:
        assert "Track" not in tags("A beep followed by a flash of light.")
        assert "Track" in tags("The subject follows the moving dot with the eyes.")

    def test_within_a_time_or_distance_is_a_bound_not_a_place(self) -> None:
        assert "Within" not in tags("The subject must answer within 2 seconds.")
        assert "Within" not in tags("A ball rolls to within 5 m of the wall.")
        assert "(Within, Circle)" in annotate("A dot appears within the circle.")

    def test_task_and_errors_are_topics_not_tags(self) -> None:
        found = tags("Feedback about errors in the task is displayed.")
        assert "Feedback" in found
        assert "Task" not in found and "Incorrect-action" not in found
        assert "Task" in tags("Start of the task.")  # a boundary of the task is annotated


class TestEnglish:
    def test_a_negated_word_means_its_prefixed_opposite(self) -> None:
        assert "Unfamiliar" in tags("The face is not familiar.")
        assert "Indeterminate-action" in tags("It is not certain whether the subject saw the flash.")

    def test_turning_a_colour_is_becoming_it_not_turning_round(self) -> None:
        assert "(Cross, Green)" in annotate("The fixation cross turns green.")
        assert "Turn" not in tags("The fixation cross turns green.")
        assert "Turn" in tags("The subject turns around.")

    def test_a_response_window_is_a_phase_of_the_trial(self) -> None:
        found = tags("Start of the response window.")
        assert "Window" not in found and "Experiment-structure" in found

    def test_lemmas_come_from_lemminflect(self) -> None:
        assert "stimulus" in lemma_candidates("stimuli")
        assert "hold" in lemma_candidates("held")
        assert "foot" in lemma_candidates("feet")
        assert "center" in lemma_candidates("centre")  # British spellings reach the American lexicon
        assert "visual" in lemma_candidates("visually")  # derivation lemminflect leaves alone


class TestWordSense:
    def test_a_participle_before_a_noun_says_which_thing_not_what_is_done(self) -> None:
        assert "Attend-to" not in tags("A beep is played to the attended ear.")
        assert "Attend-to" in tags("The subject attended to the beeps.")

    def test_a_thing_named_by_its_kind_and_by_itself_gets_the_specific_tag(self) -> None:
        found = tags("A buzz sound is played.")
        assert "Buzz" in found and "Sound" not in found
        assert "(Image, Face)" in annotate("A picture of a face.")  # two things, neither a kind of the other

    def test_what_is_not_shown_presents_nothing(self) -> None:
        for description in ["The target picture is not displayed.", "The tone is not played."]:
            found = tags(description)
            assert not {"Sensory-event", "Visual-presentation", "Experimental-stimulus"} & set(found), description

    def test_only_a_quality_has_a_prefixed_opposite(self) -> None:
        # "not played" is not "displayed"; "not familiar" is "unfamiliar".
        assert "Visual-presentation" not in tags("The tone is not played.")
        assert "Unfamiliar" in tags("The voice is not familiar.")

    def test_missing_means_absent_not_a_missed_target(self) -> None:
        assert "Miss" not in tags("Two samples are missing from the recording.")
        assert "Miss" in tags("The subject missed the cue.")


class TestFaithfulnessKeepsWorking:
    @pytest.mark.parametrize("description", [
        "Feedback about errors in the task is displayed.",
        "The subject gives a wrong answer to the target.",
        "The subject imagines lifting the right foot.",
        "The answer was wrong.",
        "Subjects attend solely to the tones in the right ear.",
        "The subject must answer within 2 seconds.",
        "Feedback on the previous response is shown.",
        "A beep is played to the attended ear.",
        "A buzz sound is played.",
    ])
    def test_what_conventions_leave_out_is_not_held_against_the_annotation(self, description: str) -> None:
        coverage = assess_coverage(description, annotate(description))
        assert coverage.uncovered == () and coverage.confidence == 1.0

    def test_a_real_omission_is_still_reported(self) -> None:
        coverage = assess_coverage("A red circle and a 440 Hz tone.", "Sensory-event, Auditory-presentation, Tone")
        assert "circle" in coverage.uncovered and coverage.confidence < 1.0
