"""Summarise the current attempt's errors; deterministic, with an optional model to condense them."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from agents.llm.base import ChatModel
from agents.state import AnnotationState, ValidationIssue

logger = logging.getLogger(__name__)


@functools.cache
def _prompt() -> str:
    return (Path(__file__).parent / "prompt.txt").read_text(encoding="utf-8")


def _error_lines(errors: list[ValidationIssue]) -> list[str]:
    seen: set[tuple[str, str]] = set()
    lines = []
    for issue in errors:
        key = (issue.code, issue.tag)
        if key in seen:
            continue
        seen.add(key)
        where = f" in '{issue.tag}'" if issue.tag else ""
        lines.append(f"{issue.code}{where}: {issue.hint}")
    return lines


async def summarise_feedback(state: AnnotationState, llm: ChatModel | None) -> str:
    """Store and return the feedback the next annotation attempt receives."""
    current = state.current
    assert current is not None, "feedback follows an annotation"
    lines = _error_lines(current.errors)
    feedback = "\n".join(f"- {line}" for line in lines)
    if llm is not None and lines:
        prompt = _prompt().format(description=state.description, annotation=current.annotation,
                                  errors=feedback)
        reply = await llm.complete("feedback", [{"role": "user", "content": prompt}])
        summary = reply.text.strip()
        # The rule-based list stays: a weak model's summary must not hide an error code.
        if summary:
            feedback = f"{feedback}\nSummary: {summary[:1000]}"
    current.feedback = feedback
    state.pending_feedback = feedback
    return feedback
