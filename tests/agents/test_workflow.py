"""Every route of the workflow, with a scripted stand-in for the LLM."""

from __future__ import annotations

import json
import threading

import pytest

from agents.llm.base import LLMError
from agents.state import AgentStep, AnnotationState, LLMCall, WorkflowOptions
from agents.workflow import InvalidInput, run_workflow
from tests.support.llm import ScriptedLLM

VALID_A = "Sensory-event, Visual-presentation, (Red, Circle)"
VALID_B = "Sensory-event, Visual-presentation, (Red, Circle, (Left-side-of, Computer-screen))"
VALID_C = "Sensory-event, Visual-presentation, (Blue, Square)"
INVALID = "Sensory-event, Blorp-tag"
FAITHFUL = json.dumps({"faithful": True, "feedback": ""})


def unfaithful(text: str) -> str:
    return json.dumps({"faithful": False, "feedback": text})


class Recorder:
    def __init__(self) -> None:
        self.steps: list[AgentStep] = []
        self.calls: list[LLMCall] = []

    async def on_step(self, step: AgentStep, state: AnnotationState) -> None:
        self.steps.append(step)

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None:
        self.calls.append(call)


def user_prompt(messages: list[dict]) -> str:
    return "\n".join(str(m["content"]) for m in messages)


async def test_valid_at_first_try() -> None:
    llm = ScriptedLLM({"annotation": [VALID_A], "evaluation": [FAITHFUL]})
    observer = Recorder()
    state = await run_workflow("A red circle appears.", llm=llm, observer=observer)
    assert state.status == "succeeded"
    assert state.annotation == VALID_A
    assert len(state.iterations) == 1 and state.is_valid and state.is_faithful
    assert [s.agent for s in observer.steps] == ["annotation", "validation", "evaluation"]
    assert [s.seq for s in observer.steps] == [1, 2, 3]
    assert len(observer.calls) == 2 and state.usage()["llm_calls"] == 2


async def test_invalid_then_valid_feeds_errors_back() -> None:
    llm = ScriptedLLM({"annotation": [INVALID, VALID_A], "feedback": ["Use a real tag."],
                       "evaluation": [FAITHFUL]})
    state = await run_workflow("A red circle appears.", llm=llm)
    assert state.status == "succeeded"
    assert [it.is_valid for it in state.iterations] == [False, True]
    assert state.iterations[0].errors[0].code == "TAG_INVALID"
    second = user_prompt(llm.calls_for("annotation")[1])
    assert "TAG_INVALID" in second and "Blorp-tag" in second
    assert "Use a real tag." in second  # the feedback agent's summary reaches the annotator
    assert "TAG_INVALID" in user_prompt(llm.calls_for("feedback")[0])


async def test_attempt_cap_reached_ends_invalid() -> None:
    llm = ScriptedLLM({"annotation": [INVALID], "feedback": ["fix it"]})
    observer = Recorder()
    state = await run_workflow("A red circle appears.", WorkflowOptions(max_validation_attempts=3),
                               llm=llm, observer=observer)
    assert state.status == "invalid"
    assert len(state.iterations) == 3
    assert not state.is_valid
    assert "evaluation" not in [s.agent for s in observer.steps]
    # No feedback after the last attempt: nobody would read it.
    assert [s.agent for s in observer.steps].count("feedback") == 2


async def test_unfaithful_then_refined() -> None:
    llm = ScriptedLLM({"annotation": [VALID_A, VALID_B],
                       "evaluation": [unfaithful("The position left of the screen is missing."), FAITHFUL]})
    state = await run_workflow("A red circle appears on the left of the screen.", llm=llm)
    assert state.status == "succeeded"
    assert state.annotation == VALID_B and state.is_faithful
    assert [it.evaluation.is_faithful for it in state.iterations] == [False, True]
    assert "The position left of the screen is missing." in user_prompt(llm.calls_for("annotation")[1])


async def test_iteration_cap_stops_refinement() -> None:
    llm = ScriptedLLM({"annotation": [VALID_A, VALID_B, VALID_C, VALID_A],
                       "evaluation": [unfaithful("still missing things")]})
    state = await run_workflow("Something happens.", WorkflowOptions(max_total_iterations=3), llm=llm)
    assert len(state.iterations) == 3
    assert state.status == "succeeded"  # valid, though the judge was never satisfied
    assert state.is_faithful is False


async def test_iteration_cap_also_bounds_validation_retries() -> None:
    llm = ScriptedLLM({"annotation": [INVALID], "feedback": ["x"]})
    state = await run_workflow("x", WorkflowOptions(max_validation_attempts=5, max_total_iterations=2), llm=llm)
    assert len(state.iterations) == 2 and state.status == "invalid"


async def test_repeated_answer_stops_refining() -> None:
    llm = ScriptedLLM({"annotation": [VALID_A], "evaluation": [unfaithful("more please")]})
    state = await run_workflow("A red circle.", WorkflowOptions(max_total_iterations=5), llm=llm)
    assert len(state.iterations) == 2
    assert state.status == "succeeded"


async def test_assessment_runs_only_when_asked() -> None:
    assessment = json.dumps({"complete": False, "missing": ["size"], "feedback": "Size is not tagged."})
    llm = ScriptedLLM({"annotation": [VALID_A], "evaluation": [FAITHFUL], "assessment": [assessment]})
    state = await run_workflow("A red circle.", WorkflowOptions(run_assessment=True), llm=llm)
    assert state.assessment is not None and not state.assessment.is_complete
    assert "size" in state.assessment.missing
    plain = await run_workflow("A red circle.", llm=ScriptedLLM({"annotation": [VALID_A],
                                                                  "evaluation": [FAITHFUL]}))
    assert plain.assessment is None


async def test_unreadable_reply_is_fed_back_as_parse_error() -> None:
    llm = ScriptedLLM({"annotation": ["", VALID_A], "evaluation": [FAITHFUL]})
    state = await run_workflow("A red circle.", llm=llm)
    assert state.iterations[0].errors[0].code == "PARSE_ERROR"
    assert state.status == "succeeded"
    assert "PARSE_ERROR" in user_prompt(llm.calls_for("annotation")[1])


async def test_runaway_nesting_in_replies_is_fed_back_not_a_crash() -> None:
    # Each would raise RecursionError (in hedtools, json or a tree walk) and end the run as a traceback.
    deep_groups = "(" * 600 + "Red" + ")" * 600
    deep_json = "[" * 600 + '"Red"' + "]" * 600
    deep_verdict = '{"a": ' * 2000 + "1" + "}" * 2000
    llm = ScriptedLLM({"annotation": [deep_groups, deep_json, VALID_A], "feedback": ["flatten it"],
                       "evaluation": [deep_verdict], "assessment": [deep_verdict]})
    state = await run_workflow("A red circle.", WorkflowOptions(run_assessment=True), llm=llm)
    assert [it.errors[0].code for it in state.iterations[:2]] == ["GROUP_TOO_DEEP", "PARSE_ERROR"]
    assert state.iterations[2].annotation == VALID_A and state.status == "succeeded"
    assert state.evaluation is not None and state.assessment is not None  # rule-based verdicts stand


async def test_model_failure_ends_failed_with_one_line() -> None:
    llm = ScriptedLLM({"annotation": [LLMError("endpoint refused the API key (401)")]})
    observer = Recorder()
    state = await run_workflow("A red circle.", llm=llm, observer=observer)
    assert state.status == "failed"
    assert state.error == "endpoint refused the API key (401)"
    assert observer.calls and observer.calls[0].error  # the failed call is recorded too


async def test_cancel_between_steps() -> None:
    checks = 0

    async def cancel_after_first() -> bool:
        nonlocal checks
        checks += 1
        return checks > 1

    llm = ScriptedLLM({"annotation": [INVALID], "feedback": ["x"]})
    state = await run_workflow("A red circle.", llm=llm, should_cancel=cancel_after_first)
    assert state.status == "cancelled"
    assert len(state.iterations) == 1


async def test_schema_is_indexed_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loading a schema version takes seconds; on the loop it would stall every websocket meanwhile.
    import agents.vocabulary

    built_in: list[int] = []

    class Recording(agents.vocabulary.Vocabulary):
        def __init__(self, *args: object, **kwargs: object) -> None:
            built_in.append(threading.get_ident())
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    agents.vocabulary.clear_cache()
    monkeypatch.setattr(agents.vocabulary, "Vocabulary", Recording)
    llm = ScriptedLLM({"annotation": [VALID_A], "evaluation": [FAITHFUL]})
    state = await run_workflow("A red circle appears.", llm=llm)
    assert state.status == "succeeded"
    assert len(built_in) == 1 and built_in[0] != threading.get_ident()


async def test_offline_run_without_llm() -> None:
    state = await run_workflow("A red circle appears on the left side of the screen.")
    assert state.status == "succeeded" and state.is_valid
    assert state.llm_calls == []


@pytest.mark.parametrize(("description", "options", "message"), [
    ("", WorkflowOptions(), "description is empty"),
    ("   \n ", WorkflowOptions(), "description is empty"),
    ("x" * 5001, WorkflowOptions(), "limit is 5000"),
    ("ok", WorkflowOptions(schema_version="7.9.9"), "unknown HED schema version '7.9.9'"),
    ("ok", WorkflowOptions(max_validation_attempts=0), "max validation attempts"),
])
async def test_bad_input_is_refused_before_any_step(description: str, options: WorkflowOptions,
                                                    message: str) -> None:
    observer = Recorder()
    with pytest.raises(ValueError, match=message):
        await run_workflow(description, options, observer=observer)
    assert observer.steps == []


def test_invalid_input_is_a_value_error() -> None:
    assert issubclass(InvalidInput, ValueError)


async def test_failed_refinement_keeps_the_last_valid_attempt() -> None:
    llm = ScriptedLLM({"annotation": [VALID_A, INVALID], "feedback": ["x"],
                       "evaluation": [unfaithful("the position is missing")]})
    state = await run_workflow("A red circle on the left.", WorkflowOptions(max_total_iterations=3), llm=llm)
    assert [it.is_valid for it in state.iterations] == [True, False, False]
    assert state.status == "succeeded"
    assert state.annotation == VALID_A and state.is_valid
    assert state.is_faithful is False  # the judge's verdict on the kept attempt stands
