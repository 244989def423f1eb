"""The tags an annotation is scored on: the referee's reading (definitions kept) and definitions expanded."""

from __future__ import annotations

from agents.llm.configuration import OFFLINE_MODEL, configuration_of
from agents.prompt_version import prompt_version
from agents.scoring import scorer_for, uses_definitions
from tests.support.llm import ScriptedLLM

SCORER = scorer_for("8.4.0")


def test_short_base_tags_lower_case_values_dropped_references_out():
    assert SCORER.tags("Sensory-event, (Red, Circle), Duration/2 s, {column}") == {
        "sensory-event", "red", "circle", "duration"}
    assert SCORER.tags("Item/Object/Man-made-object/Device/IO-device/Input-device/Keyboard") == {"keyboard"}
    assert SCORER.tags("") == frozenset() and SCORER.tags("((Red") == frozenset()  # unparsable: no credit


def test_definitions_kept_as_the_referee_counts_them_or_expanded():
    text = "Sensory-event, Def/Made-up-thing, (Definition/Made-up-thing, (Visual-presentation, Square))"
    assert uses_definitions(text) and not uses_definitions("Sensory-event, Red")
    assert SCORER.tags(text) == {"sensory-event", "def", "definition", "visual-presentation", "square"}
    assert SCORER.tags(text, expand=True) == {"sensory-event", "visual-presentation", "square"}
    # A definition the annotation does not hold cannot be expanded: only its machinery goes.
    assert SCORER.tags("Agent-action, Def/Unknown-one", expand=True) == {"agent-action"}
    assert SCORER.tags("(Def-expand/Made-up, (Blue)), Agent-action", expand=True) == {"blue", "agent-action"}


def test_validity_is_hedtools_with_no_placeholders():
    assert SCORER.is_valid("Sensory-event, (Red, Circle)")
    assert not SCORER.is_valid("Sensory-event, Blorp-tag") and not SCORER.is_valid("  ")


def test_a_configuration_names_provider_model_decoding_prompts_and_schema():
    offline = configuration_of(None, "8.3.0")
    assert (offline.provider, offline.model, offline.constrained, offline.schema_version) == (
        "offline", OFFLINE_MODEL, None, "8.3.0")
    scripted = configuration_of(ScriptedLLM(["x"], model="tiny"), "8.4.0")
    assert (scripted.model, scripted.constrained, scripted.prompt_version) == ("tiny", False, prompt_version())
    assert prompt_version().startswith("p") and len(prompt_version()) == 9
