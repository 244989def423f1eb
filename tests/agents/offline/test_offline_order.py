"""How the offline annotator reads the order of events and what is held back: "X follows Y" with a thing as
its subject, a stimulus named as a clause's subject beside a response, a withheld answer, a pause, and a
presentation that lasts while the participant acts.

Every description is written for these tests (made up, not from any dataset).
"""

from __future__ import annotations

import pytest

from agents.hedstring import parse_groups
from tests.support.offline import annotate, event_checker_issues, flat, tags


def _event_groups(annotation: str) -> list[list[str]]:
    """The tags of each top-level group, flattened (an event each when a description tells of two)."""
    return [[t.split("/")[0] for t in flat(g)] for g in parse_groups(annotation) if not isinstance(g, str)]


class TestOrderInTime:
    @pytest.mark.parametrize("description", ["A beep follows the picture.", "A pause of 3 s follows the tone.",
                                             "A target follows the picture, but the participant responds anyway."])
    def test_a_thing_that_follows_another_comes_after_it_and_tracks_nothing(self, description: str) -> None:
        assert "Track" not in tags(description)

    @pytest.mark.parametrize("description", ["The participant follows the dot with the eyes.",
                                             "Follow the moving dot."])
    def test_someone_who_follows_a_thing_tracks_it(self, description: str) -> None:
        assert "Track" in tags(description)


class TestStimulusAsSubject:
    def test_a_stimulus_opening_its_clause_is_presented_beside_the_response(self) -> None:
        annotation = annotate("A target follows the picture, but the participant responds anyway.")
        groups = _event_groups(annotation)
        shown = next(g for g in groups if "Sensory-event" in g)
        acted = next(g for g in groups if "Agent-action" in g)
        assert "Target" in shown and "Participant-response" in acted

    def test_a_stimulus_after_the_verb_is_what_was_answered(self) -> None:
        assert "Sensory-event" not in tags("The participant responds to the target.")

    def test_the_presented_stimulus_stays_when_the_answer_is_withheld(self) -> None:
        found = tags("A target follows the picture, and the participant withholds the response.")
        assert {"Sensory-event", "Target", "Omitted-action"} <= set(found)


class TestWithheldAnswers:
    @pytest.mark.parametrize("description", ["The participant withholds the response.",
                                             "The participant pressed no key."])
    def test_an_answer_held_back_is_an_omitted_action_not_a_press(self, description: str) -> None:
        found = tags(description)
        assert "Omitted-action" in found and "Press" not in found


class TestTimes:
    def test_a_pause_of_some_seconds_is_a_time_interval_not_a_duration(self) -> None:
        annotation = annotate("A pause of 3 s follows the tone.")
        assert "Time-interval/3 s" in annotation and "Duration" not in annotation

    def test_a_presentation_that_lasts_is_headed_by_its_duration_beside_the_response(self) -> None:
        annotation = annotate("A square is shown for 2 s and the participant presses a key.")
        top = parse_groups(annotation)
        timed = next(g for g in top if not isinstance(g, str) and g[0] == "Duration/2 s")
        assert "Sensory-event" in flat(timed) and "Square" in flat(timed)
        assert any(not isinstance(g, str) and "Agent-action" in flat(g) and g is not timed for g in top)
        assert event_checker_issues(annotation) == []


class TestOtherEvents:
    def test_what_an_event_follows_belongs_to_the_event_before_it(self) -> None:
        found = tags("A beep follows the picture.")
        assert "Beep" in found and "Image" not in found and "Visual-presentation" not in found

    def test_left_out_is_excluded_not_the_left_side(self) -> None:
        assert "Left" not in tags("A trial left out of the analysis.")
