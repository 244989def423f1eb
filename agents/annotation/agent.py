"""Annotation agent entry point: an LLM when one is configured, else the offline annotator."""

from __future__ import annotations

import asyncio
import logging

from agents.annotation.llm_annotator import annotate_with_llm
from agents.llm.base import ChatModel
from agents.offline import annotate_offline
from agents.state import AnnotationState, Iteration

logger = logging.getLogger(__name__)


def _rejected_tags(state: AnnotationState) -> set[str]:
    """Tags the validator rejected in any earlier attempt, never to be offered again."""
    return {i.tag.split("/")[0] for it in state.iterations for i in it.errors if i.tag}


async def annotate(state: AnnotationState, llm: ChatModel | None) -> Iteration:
    """Write the next attempt and append it to ``state.iterations``."""
    number = len(state.iterations) + 1
    text = state.description
    if state.image_description:
        text = f"{text}\n{state.image_description}".strip()
    if llm is None:
        # Synchronous and schema-bound: off the event loop, like validation.
        result = await asyncio.to_thread(annotate_offline, text, schema_version=state.options.schema_version,
                                         no_extend=state.options.no_extend, avoid=_rejected_tags(state))
        iteration = Iteration(number=number, annotation=result.annotation)
    else:
        annotation, parse_issue = await annotate_with_llm(state, llm, text)
        iteration = Iteration(number=number, annotation=annotation)
        if parse_issue is not None:
            # A reply we could not read is fed back exactly like a validation error.
            iteration.issues.append(parse_issue)
    state.iterations.append(iteration)
    return iteration
