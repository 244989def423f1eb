"""A description that tells of several events never silently becomes one blob of tags."""

from __future__ import annotations

import json

import pytest

from agents.hedstring import parse_groups
from agents.offline import annotate_offline, find_events
from agents.offline.segments import split_sentences
from agents.state import AgentStep, AnnotationState, LLMCall
from agents.validation import validate_hed
from agents.workflow import run_workflow
from tests.support.llm import ScriptedLLM

THREE = "A fixation cross appears. Then a face is shown for 500 ms. The participant presses the left button."
EVENT_TYPES = {"Sensory-event", "Agent-action", "Experiment-control", "Experiment-structure"}


class Recorder:
    def __init__(self) -> None:
        self.steps: list[AgentStep] = []

    async def on_step(self, step: AgentStep, state: AnnotationState) -> None:
        self.steps.append(step)

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None:
        return None


def flat(node: object) -> list[str]:
    return [node] if isinstance(node, str) else [t for child in node for t in flat(child)]  # type: ignore[union-attr]


def narrative() -> str:
    """A long trial narrative (about 5,000 characters), written for this test."""
    sentences = [
        "A trial begins with a gray screen.", "A white fixation cross appears in the center of the screen.",
        "Then a red circle is shown on the left side of the screen.",
        "The participant presses the left button with the index finger.", "A 1000 Hz tone is played for 200 ms.",
        "A happy face is displayed above the fixation cross.", "The participant releases the key.",
        "A blue square flashes on the right side of the screen.", "A loud beep is heard.",
        "The participant blinks.", "A picture of a house is shown for 1 s.", "The subject touches the screen.",
    ]
    text, i = "", 0
    while len(text) < 4800:
        text += sentences[i % len(sentences)] + " "
        i += 1
    return text.strip()


def test_sentences_split_at_sentence_ends_only() -> None:
    assert split_sentences(THREE) == ["A fixation cross appears.", "Then a face is shown for 500 ms.",
                                      "The participant presses the left button."]
    one = "A tone of 5.5 kHz, e.g. a beep, is played."
    assert split_sentences(one) == [one]


def test_each_event_gets_its_own_valid_top_level_group() -> None:
    result = annotate_offline(THREE)
    assert len(result.events) == 3
    groups = parse_groups(result.annotation)
    assert len(groups) == 3 and all(isinstance(g, list) for g in groups)
    for group in groups:
        assert EVENT_TYPES & set(flat(group)), group  # every group says what kind of event it is
    assert "Agent-action" in flat(groups[2]) and "Press" in flat(groups[2])
    assert "Face" in flat(groups[1]) and "Duration/500 ms" in flat(groups[1])
    assert [i for i in validate_hed(result.annotation, "8.4.0") if i.is_error] == []


def test_a_following_sentence_without_an_event_stays_with_its_event() -> None:
    result = annotate_offline("A red circle appears. It is large.")
    assert result.events == ()
    assert find_events("A red circle appears. It is large.") == ()


async def test_the_run_tells_the_reader_it_split_the_events() -> None:
    observer = Recorder()
    state = await run_workflow(THREE, observer=observer)
    assert state.is_valid and len(state.events) == 3
    assert state.notes and "3 separate events" in state.notes[0]
    step = next(s for s in observer.steps if s.agent == "annotation")
    assert "multi-event" in step.action.lower() and "3 separate events" in step.feedback
    assert state.iterations[0].notes == [state.notes[0]]


async def test_a_long_narrative_is_split_and_flagged() -> None:
    text = narrative()
    assert 4500 < len(text) <= 5000
    state = await run_workflow(text)
    assert state.is_valid and state.status == "succeeded"
    assert len(state.events) > 20
    groups = parse_groups(state.annotation)
    assert len(groups) >= 10 and all(isinstance(g, list) for g in groups)
    assert all(len(flat(g)) <= 15 for g in groups)  # readable events, not a 60-tag blob
    assert "one row per event" in state.notes[0]


async def test_the_language_model_is_asked_for_one_group_per_event() -> None:
    answer = ("(Sensory-event, Visual-presentation, Cross), (Sensory-event, Visual-presentation, Face), "
              "(Agent-action, Participant-response, (Experiment-participant, (Press, Push-button)))")
    llm = ScriptedLLM({"annotation": [answer], "evaluation": [json.dumps({"faithful": True, "feedback": ""})]})
    state = await run_workflow(THREE, llm=llm)
    prompt = "\n".join(str(m["content"]) for m in llm.calls_for("annotation")[0])
    assert "3 separate events" in prompt and "one parenthesised top-level group per event" in prompt
    assert "2. Then a face is shown for 500 ms." in prompt
    assert state.events and state.notes and "3 separate events" in state.notes[0]


@pytest.mark.parametrize("description", ["A red circle appears on the left side of the screen.",
                                         "Participant presses a button."])
def test_single_events_are_annotated_as_before(description: str) -> None:
    result = annotate_offline(description)
    assert result.events == ()
    assert not result.annotation.startswith("(Sensory-event") and not result.annotation.startswith("(Agent")
