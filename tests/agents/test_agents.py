"""Each agent alone."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from agents.assessment import assess
from agents.evaluation import evaluate
from agents.feedback import summarise_feedback
from agents.state import AnnotationState, Iteration, WorkflowOptions
from agents.validation import hint_for, validate_hed
from agents.vision import VisionUnavailable, describe_image
from tests.support.llm import ScriptedLLM


def state_with(annotation: str, description: str = "A red circle appears.", **options: object) -> AnnotationState:
    state = AnnotationState(description=description, options=WorkflowOptions(**options))  # type: ignore[arg-type]
    state.iterations.append(Iteration(number=1, annotation=annotation))
    return state


class TestValidation:
    def test_valid_string_has_no_errors(self) -> None:
        issues = validate_hed("Sensory-event, Visual-presentation, (Red, Circle)", "8.4.0")
        assert [i for i in issues if i.is_error] == []

    def test_invalid_tag_has_code_hint_and_suggestion(self) -> None:
        (issue,) = validate_hed("Sensory-event, Circel", "8.4.0")
        assert issue.code == "TAG_INVALID" and issue.is_error and issue.tag == "Circel"
        assert issue.hint.startswith(hint_for("TAG_INVALID"))
        assert "Circle" in issue.hint  # closest existing tag

    @pytest.mark.parametrize(("hed", "code"), [
        ("(Red, Circle", "PARENTHESES_MISMATCH"),
        ("Frequency/500 parsecs", "UNITS_INVALID"),
        ("Red, Red", "TAG_EXPRESSION_REPEATED"),
        ("", "EMPTY_ANNOTATION"),
        # hedtools would recurse past Python's limit on this; it must come back as an issue.
        ("(" * 600 + "Red" + ")" * 600, "GROUP_TOO_DEEP"),
    ])
    def test_error_codes_each_get_their_own_hint(self, hed: str, code: str) -> None:
        issues = validate_hed(hed, "8.4.0")
        assert code in [i.code for i in issues]
        hint = next(i.hint for i in issues if i.code == code)
        assert hint == hint_for(code) and hint != hint_for("NO_SUCH_CODE")

    def test_extension_is_a_warning_unless_forbidden(self) -> None:
        (allowed,) = validate_hed("Item/Blorp", "8.4.0")
        assert allowed.code == "TAG_EXTENDED" and not allowed.is_error
        (forbidden,) = validate_hed("Item/Blorp", "8.4.0", no_extend=True)
        assert forbidden.code == "TAG_EXTENDED" and forbidden.is_error

    def test_validator_is_built_once_when_threads_ask_together(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import hed.validator

        from agents.validation import agent

        built: list[object] = []
        real = hed.validator.HedValidator

        def slow_build(schema: object) -> object:
            built.append(schema)
            time.sleep(0.05)  # widen the window in which a second thread could also miss
            return real(schema)

        agent.clear_validators()
        monkeypatch.setattr(hed.validator, "HedValidator", slow_build)
        with ThreadPoolExecutor(max_workers=4) as pool:
            validators = list(pool.map(lambda _: agent.hed_validator("8.4.0"), range(4)))
        assert len(built) == 1 and all(v is validators[0] for v in validators)

    def test_other_schema_versions(self) -> None:
        assert not [i for i in validate_hed("Sensory-event, (Red, Circle)", "8.0.0") if i.is_error]


class TestFeedback:
    async def test_lists_each_error_with_its_hint(self) -> None:
        state = state_with("Sensory-event, Blorp-tag, (Red, Red)")
        invalid = validate_hed("Sensory-event, Blorp-tag", "8.4.0")
        repeated = validate_hed("(Red, Red)", "8.4.0")
        state.current.issues = invalid + repeated
        feedback = await summarise_feedback(state, None)
        assert "TAG_INVALID" in feedback and "'Blorp-tag'" in feedback and invalid[0].hint in feedback
        assert "TAG_EXPRESSION_REPEATED" in feedback and hint_for("TAG_EXPRESSION_REPEATED") in feedback
        assert state.pending_feedback == feedback == state.current.feedback

    async def test_model_summary_is_added_not_substituted(self) -> None:
        state = state_with("Sensory-event, Blorp-tag")
        state.current.issues = validate_hed(state.annotation, "8.4.0")
        llm = ScriptedLLM(["Replace Blorp-tag with Circle."])
        feedback = await summarise_feedback(state, llm)
        assert "TAG_INVALID" in feedback and "Replace Blorp-tag with Circle." in feedback


class TestEvaluation:
    async def test_offline_finds_untagged_terms(self) -> None:
        state = state_with("Sensory-event, Red", description="A red circle appears.")
        evaluation = await evaluate(state, None)
        assert not evaluation.is_faithful
        assert "circle" in evaluation.uncovered_terms
        assert "circle" in evaluation.feedback and state.pending_feedback == evaluation.feedback

    async def test_offline_accepts_a_covering_annotation(self) -> None:
        state = state_with("Sensory-event, Visual-presentation, (Red, Circle)", description="A red circle.")
        assert (await evaluate(state, None)).is_faithful

    async def test_model_verdict_wins_and_bad_reply_falls_back(self) -> None:
        state = state_with("Sensory-event, Visual-presentation, (Red, Circle)", description="A red circle.")
        llm = ScriptedLLM([json.dumps({"faithful": False, "feedback": "Colour shade missing."})])
        evaluation = await evaluate(state, llm)
        assert not evaluation.is_faithful and evaluation.feedback == "Colour shade missing."
        fallback = await evaluate(state, ScriptedLLM(["I think it is fine"]))
        assert fallback.is_faithful

    async def test_suggests_closest_tags_for_extensions(self) -> None:
        state = state_with("Sensory-event, Item/Circel", description="A circle.")
        state.current.issues = validate_hed(state.annotation, "8.4.0")
        evaluation = await evaluate(state, None)
        assert "Circle" in evaluation.suggestions["Item/Circel"]


class TestAssessment:
    async def test_missing_event_type_and_modality(self) -> None:
        assessment = await assess(state_with("(Red, Circle)"), None)
        assert not assessment.is_complete
        assert any("event type" in m for m in assessment.missing)
        modality = await assess(state_with("Sensory-event, (Red, Circle)"), None)
        assert any("modality" in m for m in modality.missing)

    async def test_complete_annotation(self) -> None:
        assessment = await assess(state_with("Sensory-event, Visual-presentation, (Red, Circle)"), None)
        assert assessment.is_complete and assessment.missing == ()


class TestVision:
    async def test_needs_a_model(self) -> None:
        with pytest.raises(VisionUnavailable):
            await describe_image(b"\x89PNG", "image/png", None)

    async def test_sends_the_image_as_a_data_url(self) -> None:
        llm = ScriptedLLM(["A red circle on a grey background."])
        text = await describe_image(b"\x89PNGdata", "image/png", llm)
        assert text == "A red circle on a grey background."
        (agent, messages, _), = llm.requests
        parts = messages[0]["content"]
        assert agent == "vision"
        assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
