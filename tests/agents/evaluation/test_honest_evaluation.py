"""The offline evaluator is honest: it names what no tag covers and does not vouch for nonsense."""

from __future__ import annotations

import asyncio

import pytest

from agents.evaluation import evaluate
from agents.offline import assess_coverage
from agents.state import AnnotationState, Evaluation, Iteration, WorkflowOptions
from agents.workflow import run_workflow
from tests.support.llm import ScriptedLLM

# Invented for these tests: strings of words that describe no experiment event.
NONSENSE = [
    "purple monkey dishwasher gravity tastes loud",
    "The blorf zandles a quimby near the wuggle.",
    "Seventeen philosophical bananas negotiate a treaty with the moon.",
    "Invisible tuesday carburetor melts sideways into democracy.",
    "asdf qwerty zxcv",
    "Quantum spaghetti whispers forgotten algebra to the lighthouse.",
]
# Plain descriptions of experiment events, written for these tests.
PLAIN = [
    "A red circle appears on the left side of the screen.",
    "The participant presses the left button with the index finger.",
    "A 1000 Hz tone is played for 200 ms.",
    "A picture of a house is shown in the center of the screen.",
    "The subject hears a loud beep and releases the key.",
    "A happy face is displayed until the participant responds.",
    "Instructions are shown on the screen.",
]


def judge(description: str, annotation: str) -> Evaluation:
    state = AnnotationState(description=description)
    state.iterations.append(Iteration(number=1, annotation=annotation))
    return asyncio.run(evaluate(state, None))


@pytest.mark.parametrize("description", NONSENSE)
async def test_nonsense_is_not_judged_faithful(description: str) -> None:
    state = await run_workflow(description)
    assert state.is_valid  # the annotator still writes valid HED ...
    assert state.evaluation is not None and state.is_faithful is False  # ... but nobody vouches for it
    assert state.evaluation.confidence < 0.8
    assert state.evaluation.unknown_terms or state.evaluation.uncovered_terms
    assert state.evaluation.feedback


@pytest.mark.parametrize("description", PLAIN)
async def test_plain_descriptions_are_judged_faithful(description: str) -> None:
    state = await run_workflow(description)
    assert state.is_valid and state.is_faithful is True, state.evaluation
    assert state.evaluation is not None and not state.evaluation.low_confidence
    assert state.evaluation.confidence >= 0.8


def test_the_reproduced_finding_names_the_words_left_out() -> None:
    verdict = judge("purple monkey dishwasher gravity tastes loud",
                    "Sensory-event, (Animal, Purple), Gustatory-presentation, Loud")
    assert not verdict.is_faithful
    assert {"dishwasher", "gravity"} <= set(verdict.unknown_terms)
    assert "dishwasher" in verdict.feedback and "gravity" in verdict.feedback


def test_mostly_unknown_text_is_low_confidence_and_says_so() -> None:
    verdict = judge("Seventeen philosophical bananas negotiate a treaty with the moon.", "Event")
    assert not verdict.is_faithful and verdict.low_confidence
    assert verdict.confidence < 0.5
    assert verdict.feedback.startswith("low confidence:")
    assert "treaty" in verdict.feedback


def test_dropped_content_words_are_named_even_when_faithful() -> None:
    description = "The participant presses the spacebar as fast as possible."
    verdict = judge(description, "Agent-action, Participant-response, (Experiment-participant, (Press, Keyboard-key))")
    assert "fast" in verdict.unknown_terms and "fast" in verdict.feedback
    # One word HED has no tag for does not make the annotation unfaithful, only less certain.
    assert verdict.is_faithful and verdict.confidence < 1.0


def test_known_terms_left_untagged_make_it_unfaithful() -> None:
    verdict = judge("A red circle appears on the left side of the screen.", "Sensory-event, Red")
    assert not verdict.is_faithful
    assert "circle" in verdict.uncovered_terms and "circle" in verdict.feedback


def test_a_full_annotation_has_full_confidence() -> None:
    coverage = assess_coverage("A red circle", "(Red, Circle)")
    assert coverage.confidence == 1.0 and coverage.uncovered == () and coverage.unknown == ()


def test_function_words_and_generic_words_do_not_count() -> None:
    coverage = assess_coverage("It should be the same as before, basically.", "Event")
    assert coverage.unknown == () and coverage.total == 0 and coverage.confidence == 1.0


def test_label_text_covers_an_unknown_word() -> None:
    coverage = assess_coverage("A zorble appears", "Sensory-event, Label/Zorble")
    assert "zorble" not in coverage.unknown and coverage.confidence == 1.0


async def test_a_model_judge_sees_the_unknown_words_and_the_confidence_stays() -> None:
    llm = ScriptedLLM({"annotation": ["Sensory-event, (Animal, Purple), Gustatory-presentation, Loud"],
                       "evaluation": ['{"faithful": false, "feedback": "The dishwasher is missing."}']})
    state = await run_workflow("purple monkey dishwasher gravity tastes loud",
                               WorkflowOptions(max_total_iterations=1), llm=llm)
    prompt = str(llm.calls_for("evaluation")[0][0]["content"])
    assert "dishwasher" in prompt and "gravity" in prompt
    assert state.evaluation is not None and state.evaluation.feedback == "The dishwasher is missing."
    assert state.evaluation.confidence < 0.8 and "dishwasher" in state.evaluation.unknown_terms
