"""Faithfulness check, rule-based offline; a model's judgement when one is configured."""

from __future__ import annotations

import dataclasses
import functools
import logging
from pathlib import Path

from agents.llm.base import ChatModel
from agents.llm.replies import json_object
from agents.offline import Coverage, assess_coverage
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


# Below this share of understood content the checker cannot vouch for anything: say so plainly.
LOW_CONFIDENCE = 0.5
# One unknown word may be a name or jargon HED has no tag for; more than that, in a description whose
# content is not mostly understood, leave the event itself unsaid (a long narrative may hold a few).
MAX_UNKNOWN = 1
UNKNOWN_CONFIDENCE = 0.8


def _feedback(coverage: Coverage) -> str:
    parts: list[str] = []
    if coverage.confidence < LOW_CONFIDENCE:
        not_understood = [*coverage.unknown, *coverage.unknown_modifiers, *coverage.uncovered]
        parts.append(f"low confidence: only {coverage.confidence:.0%} of the description's content is understood "
                     f"and expressed (not understood or not tagged: {', '.join(not_understood)}); "
                     "the annotation may not describe this event.")
    if coverage.uncovered:
        parts.append("The annotation leaves these terms of the description untagged: "
                     + ", ".join(coverage.uncovered) + ".")
    unknown = [*coverage.unknown, *coverage.unknown_modifiers]
    if unknown and coverage.confidence >= LOW_CONFIDENCE:
        parts.append("No tag expresses these words of the description (no HED tag is known for them): "
                     + ", ".join(unknown) + ".")
    return " ".join(parts)


def _offline(state: AnnotationState) -> Evaluation:
    current = state.current
    assert current is not None
    coverage = assess_coverage(state.description, current.annotation, state.options.schema_version)
    low = coverage.confidence < LOW_CONFIDENCE
    unexpressed = len(coverage.unknown) > MAX_UNKNOWN and coverage.confidence < UNKNOWN_CONFIDENCE
    faithful = not coverage.uncovered and not low and not unexpressed
    return Evaluation(is_faithful=faithful, feedback=_feedback(coverage), uncovered_terms=coverage.uncovered,
                      suggestions=_extension_suggestions(state),
                      unknown_terms=(*coverage.unknown, *coverage.unknown_modifiers),
                      confidence=coverage.confidence, low_confidence=low)


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
                                  uncovered=", ".join(evaluation.uncovered_terms) or "none",
                                  unknown=", ".join(evaluation.unknown_terms) or "none")
        reply = await llm.complete("evaluation", [{"role": "user", "content": prompt}])
        verdict = _parse_verdict(reply.text)
        if verdict is None:
            logger.info("evaluation reply unreadable, keeping the rule-based verdict")
        else:
            # The model judges; the checker's word-level findings and confidence stay for the reader.
            evaluation = dataclasses.replace(evaluation, is_faithful=verdict[0],
                                             feedback=verdict[1] or evaluation.feedback)
    current.evaluation = evaluation
    state.evaluation = evaluation
    if not evaluation.is_faithful:
        state.pending_feedback = evaluation.feedback
    return evaluation
