"""Faithfulness check, rule-based offline; a model's judgement when one is configured."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from agents.llm.base import ChatModel
from agents.llm.replies import json_object
from agents.offline import uncovered_terms
from agents.state import AnnotationState, Evaluation
from agents.vocabulary import get_vocabulary

logger = logging.getLogger(__name__)


@functools.cache
def _prompt() -> str:
    return (Path(__file__).parent / "prompt.txt").read_text(encoding="utf-8")


def _extension_suggestions(state: AnnotationState) -> dict[str, tuple[str, ...]]:
    """Closest schema tags for every extended tag, so a refinement can drop the extension."""
    current = state.current
    assert current is not None
    vocabulary = get_vocabulary(state.options.schema_version)
    out: dict[str, tuple[str, ...]] = {}
    for issue in current.issues:
        if issue.code == "TAG_EXTENDED" and issue.tag:
            leaf = issue.tag.rsplit("/", 1)[-1]
            out[issue.tag] = tuple(vocabulary.closest(leaf, limit=3))
    return out


def _offline(state: AnnotationState) -> Evaluation:
    current = state.current
    assert current is not None
    missing = uncovered_terms(state.description, current.annotation, state.options.schema_version)
    feedback = ""
    if missing:
        feedback = "The annotation leaves these terms of the description untagged: " + ", ".join(missing) + "."
    return Evaluation(is_faithful=not missing, feedback=feedback, uncovered_terms=missing,
                      suggestions=_extension_suggestions(state))


def _parse_verdict(text: str) -> tuple[bool, str] | None:
    data = json_object(text)
    if data is None or not isinstance(data.get("faithful"), bool):
        return None
    return data["faithful"], str(data.get("feedback", ""))


async def evaluate(state: AnnotationState, llm: ChatModel | None) -> Evaluation:
    """Judge the current (valid) attempt and store the verdict on it and on the state."""
    current = state.current
    assert current is not None, "evaluation follows a valid annotation"
    evaluation = _offline(state)
    if llm is not None:
        prompt = _prompt().format(description=state.description, annotation=current.annotation,
                                  uncovered=", ".join(evaluation.uncovered_terms) or "none")
        reply = await llm.complete("evaluation", [{"role": "user", "content": prompt}])
        verdict = _parse_verdict(reply.text)
        if verdict is None:
            logger.info("evaluation reply unreadable, keeping the rule-based verdict")
        else:
            evaluation = Evaluation(is_faithful=verdict[0], feedback=verdict[1] or evaluation.feedback,
                                    uncovered_terms=evaluation.uncovered_terms,
                                    suggestions=evaluation.suggestions)
    current.evaluation = evaluation
    state.evaluation = evaluation
    if not evaluation.is_faithful:
        state.pending_feedback = evaluation.feedback
    return evaluation
