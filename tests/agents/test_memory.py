"""Memory of accepted annotations: similar examples reach the prompt, identical ones are reused."""

from __future__ import annotations

import json
import random

from agents.annotation.llm_annotator import build_messages
from agents.memory import exact_match, most_similar, normalise_description
from agents.state import AgentStep, AnnotationState, LLMCall, MemoryExample
from agents.workflow import run_workflow
from tests.support.llm import ScriptedLLM

FAITHFUL = json.dumps({"faithful": True, "feedback": ""})
ACCEPTED = MemoryExample(description="A green triangle appears at the top of the screen.",
                         annotation="Sensory-event, Visual-presentation, "
                                    "(Green, Triangle, (Top-edge-of, Computer-screen))",
                         source_id="session-41")
OTHER = MemoryExample(description="The participant claps twice.",
                      annotation="Agent-action, (Experiment-participant, Clap-hands)", source_id="session-7")


class Recorder:
    def __init__(self) -> None:
        self.steps: list[AgentStep] = []

    async def on_step(self, step: AgentStep, state: AnnotationState) -> None:
        self.steps.append(step)

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None:
        return None


def prompt_of(messages: list[dict]) -> str:
    return "\n".join(str(m["content"]) for m in messages)


def test_normalisation_ignores_case_spacing_and_punctuation() -> None:
    assert normalise_description("  A 500ms  Tone. ") == normalise_description("a 500 ms tone")
    assert normalise_description("The participant\u2019s KEY!") == normalise_description("the participant's key")
    assert normalise_description("A red circle") != normalise_description("A blue circle")


def test_most_similar_ranks_identical_first_and_drops_unrelated() -> None:
    near = MemoryExample("A green triangle appears at the bottom of the screen.", "Sensory-event, Triangle", "s-2")
    same = MemoryExample("a green TRIANGLE appears at the top of the screen", "Sensory-event, Green", "s-3")
    picked = most_similar(ACCEPTED.description, [OTHER, near, same], k=3)
    assert [e.source_id for e in picked] == ["s-3", "s-2"]  # the clapping example is not similar
    assert most_similar(ACCEPTED.description, [near, same], k=1) == [same]


def test_most_similar_counts_duplicates_once() -> None:
    copies = [MemoryExample(ACCEPTED.description, ACCEPTED.annotation, f"s-{i}") for i in range(5)]
    assert [e.source_id for e in most_similar(ACCEPTED.description, copies, k=3)] == ["s-0"]


def test_most_similar_picks_the_closest_of_thousands_of_candidates() -> None:
    # Its speed on a portal-sized memory is measured by benchmarks/memory_query.py, not here.
    rng = random.Random(3)
    words = ["green", "blue", "square", "tone", "face", "house", "press", "button", "right", "shown"]
    pool = [MemoryExample(" ".join(rng.choices(words, k=8)), "Event", f"s-{i}") for i in range(5000)]
    pool.append(MemoryExample("A red circle appears on the left of the screen.", "Event", "close"))
    picked = most_similar("A red circle appears on the left side of the screen.", pool, k=3)
    assert picked and picked[0].source_id == "close" and len(picked) <= 3


def test_exact_match_needs_the_same_normalised_text() -> None:
    assert exact_match("A GREEN triangle appears at the top of the screen", [OTHER, ACCEPTED]) == ACCEPTED
    assert exact_match("A green triangle appears at the top of the display.", [ACCEPTED]) is None


def test_the_prompt_holds_the_examples() -> None:
    state = AnnotationState(description="A green triangle appears at the top.", examples=[ACCEPTED])
    prompt = prompt_of(build_messages(state, state.description))
    assert ACCEPTED.description in prompt and ACCEPTED.annotation in prompt
    structured = prompt_of(build_messages(state, state.description, structured=True))
    assert '"Top-edge-of"' in structured  # the example answers in the structured form too
    assert ACCEPTED.annotation not in prompt_of(build_messages(AnnotationState(description="x"), "x"))


async def test_the_llm_run_records_the_examples_it_used() -> None:
    llm = ScriptedLLM({"annotation": ["Sensory-event, Visual-presentation, (Green, Triangle)"],
                       "evaluation": [FAITHFUL]})
    observer = Recorder()
    state = await run_workflow("A green triangle appears at the top of the display.", llm=llm, observer=observer,
                               examples=[ACCEPTED, OTHER])
    assert ACCEPTED.annotation in prompt_of(llm.calls_for("annotation")[0])
    assert state.examples_used == ["session-41"]  # the clapping example is not similar enough to offer
    assert OTHER.annotation not in prompt_of(llm.calls_for("annotation")[0])
    memory = [s for s in observer.steps if s.agent == "memory"]
    assert len(memory) == 1 and "session-41" in memory[0].output
    assert observer.steps[0].agent == "memory"  # reported before the annotation it shapes


async def test_without_examples_nothing_is_recorded() -> None:
    observer = Recorder()
    state = await run_workflow("A red circle appears.", observer=observer)
    assert state.examples_used == [] and "memory" not in [s.agent for s in observer.steps]


async def test_offline_reuses_an_identical_accepted_annotation_and_says_so() -> None:
    observer = Recorder()
    state = await run_workflow("a green triangle appears at the TOP of the screen", observer=observer,
                               examples=[OTHER, ACCEPTED])
    assert state.annotation == ACCEPTED.annotation and state.is_valid
    assert state.examples_used == ["session-41"]
    annotation = next(s for s in observer.steps if s.agent == "annotation")
    assert "reused the annotation of run session-41, accepted by a reviewer" in annotation.action
    assert "session-41" in annotation.feedback
    assert any(s.agent == "validation" and s.ok for s in observer.steps)  # validated like any other
    assert any(s.agent == "memory" and "session-41" in s.output for s in observer.steps)


async def test_offline_does_not_reuse_a_merely_similar_annotation() -> None:
    state = await run_workflow("A green triangle appears at the bottom of the screen.", examples=[ACCEPTED])
    assert state.annotation != ACCEPTED.annotation
    assert state.examples_used == []


async def test_an_accepted_annotation_that_fails_validation_is_not_kept() -> None:
    broken = MemoryExample("A red circle appears.", "Sensory-event, Blorp-tag", "session-9")
    state = await run_workflow("A red circle appears.", examples=[broken])
    assert state.iterations[0].annotation == broken.annotation and not state.iterations[0].is_valid
    assert state.is_valid and "Circle" in state.annotation
    assert "failed validation" in state.notes[-1] and "session-9" in state.notes[-1]
