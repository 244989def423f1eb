"""The schema vocabulary index: lookups, fuzzy names and prompt slices."""

from __future__ import annotations

import threading

import pytest

from agents.offline.lexicon import candidate_tags
from agents.schema import UnknownSchemaVersion
from agents.vocabulary import ALWAYS_USEFUL, Vocabulary, get_vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return get_vocabulary("8.4.0")


class TestLookup:
    def test_short_long_and_valued_forms_resolve_to_one_tag(self, vocab: Vocabulary) -> None:
        info = vocab.get("frequency")
        assert info is not None and info.name == "Frequency"
        assert vocab.get(info.long_name) is info
        assert vocab.get("Frequency/500 Hz") is info
        assert vocab.get("Rate-of-change/Frequency/500 Hz") is info

    def test_extensions_and_inventions_are_not_tags(self, vocab: Vocabulary) -> None:
        assert vocab.get("Item/Blorp") is None
        assert "Blorp-tag" not in vocab
        assert "Circle" in vocab and "circle" in vocab

    def test_value_tag_carries_units_and_flags(self, vocab: Vocabulary) -> None:
        freq = vocab.get("Frequency")
        assert freq is not None and freq.takes_value and not freq.extension_allowed
        assert "Hz" in freq.units and freq.default_unit == "Hz"
        assert "frequencyUnits" in freq.unit_classes

    def test_lineage_is_root_first_without_the_tag(self, vocab: Vocabulary) -> None:
        circle = vocab.get("Circle")
        assert circle is not None and circle.parent == "Ellipse"
        assert circle.lineage()[0] == "Item" and circle.lineage()[-1] == "Ellipse"
        assert circle.extension_allowed

    def test_unit_spelling_respects_case_of_symbols(self, vocab: Vocabulary) -> None:
        assert vocab.unit_spelling("Duration", "ms") == "ms"
        assert vocab.unit_spelling("Frequency", "hz") == "Hz"
        assert vocab.unit_spelling("Frequency", "metre") is None


class TestFuzzy:
    @pytest.mark.parametrize(("typo", "expected"), [("Circel", "Circle"), ("Circular", "Circle"),
                                                     ("RedColor", "Red-color"), ("Squre", "Square")])
    def test_closest_finds_the_intended_tag(self, vocab: Vocabulary, typo: str, expected: str) -> None:
        assert expected in vocab.closest(typo)

    def test_closest_of_a_valid_name_is_itself(self, vocab: Vocabulary) -> None:
        assert vocab.closest("circle") == ["Circle"]

    def test_closest_respects_limit_and_skips_deprecated(self, vocab: Vocabulary) -> None:
        found = vocab.closest("Gentalia", limit=3)
        assert len(found) <= 3 and "Gentalia" not in found and "Genitalia" in found

    def test_candidates_hold_lexicon_hits_and_event_basics(self, vocab: Vocabulary) -> None:
        names = [t.name for t in candidate_tags("a red circle", vocab, limit=40)]
        assert {"Red", "Circle"} <= set(names)
        assert {"Sensory-event", "Agent-action", "Participant-response"} <= set(names)
        assert len(names) <= 40 and len(set(names)) == len(names)

    def test_candidates_put_lexicon_hits_before_the_basics(self, vocab: Vocabulary) -> None:
        names = [t.name for t in candidate_tags("participant presses the mouse button", vocab, limit=5)]
        assert names[:2] == ["Experiment-participant", "Press"]


class TestCache:
    def test_one_instance_per_version_across_threads(self) -> None:
        seen: list[Vocabulary] = []
        threads = [threading.Thread(target=lambda: seen.append(get_vocabulary("8.4.0"))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len({id(v) for v in seen}) == 1

    def test_versions_differ_where_the_schema_does(self) -> None:
        old = get_vocabulary("8.0.0")
        assert old.version == "8.0.0" and "Left" not in old
        assert all(name in old for name in ALWAYS_USEFUL)

    def test_unknown_version_is_refused(self) -> None:
        with pytest.raises(UnknownSchemaVersion):
            get_vocabulary("7.9.9")
