"""How the offline annotator reads words its lexicon does not list: derived nouns, run-together words,
everyday objects and the attention a task asks for.

Every description is written for these tests (made up, not from any dataset).
"""

from __future__ import annotations

import pytest

from agents.offline.text import compound_parts, derived_bases
from tests.support.offline import tags


class TestDerivedNouns:
    @pytest.mark.parametrize(("description", "tag"), [
        ("Identification of the speaker.", "Identify"),
        ("Memorization of the word list.", "Memorize"),
        ("Categorization of the shapes.", "Judge"),  # categorize -> Judge in the lexicon
        ("Discrimination between the two tones.", "Discriminate"),
    ])
    def test_a_noun_made_from_a_verb_means_the_verb(self, description: str, tag: str) -> None:
        assert tag in tags(description)

    def test_the_base_is_an_english_word(self) -> None:
        assert derived_bases("replication") == ("replicate",)  # not "reply"
        assert derived_bases("application") == ("apply",)
        assert derived_bases("judgment") == ("judge",)
        assert derived_bases("station") == ()  # a two-letter stem is no word

    def test_a_replication_is_no_reply(self) -> None:
        assert "Participant-response" not in tags("A replication of the earlier study.")


class TestRunTogetherWords:
    def test_two_known_words_run_together_are_read_as_both(self) -> None:
        found = tags("A bluestar flashes.")
        assert "Blue" in found and "Star" in found

    def test_an_english_word_is_never_split(self) -> None:
        assert compound_parts("understand", lambda w: w in {"under", "stand"}) is None

    @pytest.mark.parametrize("description", ["The countdown starts.", "The offline data are marked."])
    def test_a_function_word_is_no_part(self, description: str) -> None:
        found = tags(description)
        assert "Count" not in found and "Dash" not in found


class TestObjects:
    @pytest.mark.parametrize(("description", "kind"), [
        ("A picture of a sofa.", "Furnishing"),
        ("A picture of a sock.", "Clothing"),
        ("A picture of a hammer.", "Device"),
        ("A picture of a banana.", "Ingestible-object"),
    ])
    def test_an_everyday_object_is_its_kind_of_thing(self, description: str, kind: str) -> None:
        assert kind in tags(description)

    def test_objects_of_different_kinds_differ(self) -> None:
        assert tags("A sofa is shown.") != tags("A sock is shown.")


class TestTaskDemands:
    def test_two_tasks_at_once_divide_attention(self) -> None:
        assert "Divided-attention" in tags("A dual-task block.")
        assert "Focused-attention" in tags("A single-task block.")

    def test_items_without_a_use_in_the_design_say_so(self) -> None:
        assert "Non-informative" in tags("A filler item.")
        assert "Not-meaningful" in tags("A junk trial.")


def test_a_side_is_read_before_the_schema_had_left_and_right() -> None:
    """8.0-8.2 have no Left or Right: the side is the spatial relation, of the body for a body part."""
    from agents.offline.annotator import annotate_offline

    old = annotate_offline("The participant presses a key with the left index finger.", schema_version="8.1.0")
    assert "(Left-side-of, Body)" in old.annotation
    new = annotate_offline("The participant presses a key with the left index finger.", schema_version="8.4.0")
    assert "Left" in new.annotation and "Body" not in new.annotation


def test_correcting_is_a_correction_not_a_correct_answer() -> None:
    from agents.offline.annotator import annotate_offline

    fixing = annotate_offline("The player starts correcting the cursor position.").annotation
    assert "Correction" in fixing and "Correct-action" not in fixing
    assert "Correct-action" in annotate_offline("A correct response.").annotation
