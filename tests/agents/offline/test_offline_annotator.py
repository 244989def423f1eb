"""The offline annotator: valid, grouped HED from plain English, and term coverage."""

from __future__ import annotations

import pytest
from hed.errors import ErrorSeverity
from hed.models import HedString
from hed.validator import HedValidator

from agents.offline import annotate_offline, uncovered_terms
from agents.schema import get_schema


@pytest.fixture(scope="module")
def validate():
    validators: dict[str, HedValidator] = {}

    def run(text: str, version: str = "8.4.0", *, strict: bool = False) -> list[dict]:
        schema = get_schema(version)
        validator = validators.setdefault(version, HedValidator(schema))
        issues = validator.validate(HedString(text, schema), allow_placeholders=False)
        return [i for i in issues if i.get("severity") == ErrorSeverity.ERROR
                or (strict and i.get("code") == "TAG_EXTENDED")]

    return run


def tags_of(annotation: str) -> set[str]:
    return {t.strip().split("/")[0] for t in annotation.replace("(", ",").replace(")", ",").split(",")
            if t.strip()}


# Written for these tests: none is a row of the development set.
EXAMPLES = [
    "A red circle appears left of fixation",
    "The subject pushes a response button.",
    "A 750 Hz tone is played.",
    "The experimenter pauses the recording.",
    "A large blue triangle is shown below fixation for 2 s",
    "Participant presses the left mouse button with the right index finger",
    "An image of a happy face appears in the upper left corner",
    "The participant makes a false alarm.",
    "A truck collides with a parked car.",
    "Start of the third block",
    "The word CORRECT is shown in green as feedback",
]


class TestValidity:
    @pytest.mark.parametrize("description", EXAMPLES)
    def test_examples_validate(self, validate, description: str) -> None:
        result = annotate_offline(description)
        assert result.annotation and validate(result.annotation) == []

    @pytest.mark.parametrize("version", ["8.0.0", "8.5.0"])
    def test_other_schema_versions_validate(self, validate, version: str) -> None:
        for description in EXAMPLES:
            result = annotate_offline(description, schema_version=version)
            assert validate(result.annotation, version) == [], (description, result.annotation)

    def test_no_tag_is_repeated_within_a_group(self, validate) -> None:
        result = annotate_offline("A red square and a red circle appear, then another red circle appears")
        assert validate(result.annotation) == []
        assert "(Square, Red)" in result.annotation and "(Circle, Red)" in result.annotation
        assert result.annotation.count("(Circle, Red)") == 1
        repeated = annotate_offline("a tone, a tone and another tone; beep beep").annotation
        top = [t.strip() for t in repeated.split(",")]
        assert len(top) == len(set(top)) and validate(repeated) == []

    def test_no_extend_never_extends(self, validate) -> None:
        for description in [*EXAMPLES, "A blorp zorbles near the glimmerstick"]:
            result = annotate_offline(description, no_extend=True)
            assert validate(result.annotation, strict=True) == []


class TestContent:
    def test_visual_stimulus_is_grouped_with_its_place(self) -> None:
        result = annotate_offline("A red circle appears left of fixation")
        assert "(Circle, Red, (Left-side-of, Computer-screen))" in result.annotation
        assert {"Sensory-event", "Visual-presentation"} <= tags_of(result.annotation)

    def test_response_names_agent_action_and_device(self) -> None:
        result = annotate_offline("The subject pushes a response button.")
        assert "(Press, Push-button)" in result.annotation
        # Participant-response says who acted; Experiment-participant beside it would say it twice.
        assert {"Agent-action", "Participant-response"} <= tags_of(result.annotation)
        assert "Experiment-participant" not in tags_of(result.annotation)

    def test_tone_frequency_uses_schema_units(self) -> None:
        result = annotate_offline("A 750 Hz tone is played.")
        assert "(Tone, Frequency/750 Hz)" in result.annotation
        assert "Auditory-presentation" in tags_of(result.annotation)

    def test_duration_heads_a_group_with_what_lasts(self) -> None:
        result = annotate_offline("A fixation cross is displayed for 500 ms")
        assert "(Duration/500 ms, (Cross))" in result.annotation

    def test_experiment_control(self) -> None:
        assert tags_of(annotate_offline("The experimenter pauses the recording.").annotation) >= {
            "Experiment-control", "Pause"}

    def test_negated_things_are_not_tagged(self) -> None:
        result = annotate_offline("A circle appears with no feedback")
        assert "Feedback" not in tags_of(result.annotation)
        assert "feedback" not in result.uncovered

    def test_gibberish_gives_minimal_annotation_and_lists_words(self, validate) -> None:
        for text in ["asdf qwerty", "blorp"]:
            result = annotate_offline(text)
            assert result.annotation == "Event" and validate(result.annotation) == []
            assert set(result.uncovered) == set(text.split()) and result.covered == {}

    def test_unknown_words_among_known_ones_are_reported(self) -> None:
        result = annotate_offline("A red zorble appears")
        assert "zorble" in result.uncovered and result.covered["red"] == "Red"

    def test_avoided_tags_are_never_emitted(self) -> None:
        first = annotate_offline("A dark green hexagon is shown.")
        assert "DarkGreen" in tags_of(first.annotation)
        again = annotate_offline("A dark green hexagon is shown.", avoid=["DarkGreen", "Sensory-event"])
        tags = tags_of(again.annotation)
        assert "DarkGreen" not in tags and "Sensory-event" not in tags
        assert "Green-color" in tags  # the parent still says what colour

    def test_tags_missing_from_old_schema_are_skipped(self) -> None:
        result = annotate_offline("Participant presses the left key", schema_version="8.0.0")
        assert "Left" not in tags_of(result.annotation)
        assert "Keyboard-key" in tags_of(result.annotation)


class TestCoverage:
    def test_missing_item_is_reported(self) -> None:
        assert uncovered_terms("a red circle", "Red") == ("circle",)

    def test_parent_or_sibling_tags_cover_a_term(self) -> None:
        assert uncovered_terms("a red circle", "(Red, Ellipse)") == ()
        assert uncovered_terms("a dark blue square", "(Blue, Square)") == ()

    def test_label_text_covers_a_term(self) -> None:
        assert uncovered_terms("the circle", "Label/Circle") == ()

    def test_offline_annotation_covers_its_own_description(self) -> None:
        for description in EXAMPLES[:4]:
            result = annotate_offline(description)
            assert uncovered_terms(description, result.annotation) == (), description
