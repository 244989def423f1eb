"""Completeness assessment: rule-based checks of HED conventions, optionally a model's view."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from agents.hedstring import base_name, tag_tokens
from agents.llm.base import ChatModel
from agents.llm.replies import json_object
from agents.state import AnnotationState, Assessment
from agents.vocabulary import get_vocabulary

logger = logging.getLogger(__name__)


@functools.cache
def _prompt() -> str:
    return (Path(__file__).parent / "prompt.txt").read_text(encoding="utf-8")


def _lineages(state: AnnotationState) -> list[tuple[str, ...]]:
    vocabulary = get_vocabulary(state.options.schema_version)
    out = []
    for token in tag_tokens(state.annotation):
        info = vocabulary.get(base_name(token))
        if info is not None:
            out.append((*info.lineage(), info.name))
    return out


def _missing(state: AnnotationState) -> list[str]:
    lineages = _lineages(state)
    names = {lin[-1] for lin in lineages}

    def under(root: str) -> bool:
        return any(root in lin for lin in lineages)

    missing = []
    if not under("Event"):
        missing.append("an event type (e.g. Sensory-event, Agent-action, Experiment-control)")
    if "Sensory-event" in names and not under("Sensory-presentation"):
        missing.append("the sensory modality (e.g. Visual-presentation, Auditory-presentation)")
    if "Agent-action" in names and not (under("Agent") or "Participant-response" in names):
        missing.append("who acted (e.g. Experiment-participant)")
    if "Sensory-event" in names and not (under("Item") or under("Sensory-property")):
        missing.append("what was presented (an item or its sensory properties)")
    return missing


async def assess(state: AnnotationState, llm: ChatModel | None) -> Assessment:
    missing = _missing(state)
    feedback = "The annotation covers the usual aspects."
    if missing:
        feedback = "Consider adding " + "; ".join(missing) + "."
    assessment = Assessment(is_complete=not missing, feedback=feedback, missing=tuple(missing))
    if llm is not None:
        prompt = _prompt().format(description=state.description, annotation=state.annotation,
                                  findings=feedback)
        reply = await llm.complete("assessment", [{"role": "user", "content": prompt}])
        data = json_object(reply.text)
        if data is not None and isinstance(data.get("complete"), bool):
            extra = tuple(str(m) for m in data.get("missing", []) if isinstance(m, str))
            assessment = Assessment(is_complete=data["complete"],
                                    feedback=str(data.get("feedback", "")) or feedback,
                                    missing=tuple(missing) + extra)
        else:
            logger.info("assessment reply unreadable, keeping the rule-based one")
    state.assessment = assessment
    return assessment
