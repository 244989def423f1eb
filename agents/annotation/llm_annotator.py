"""The LLM path of the annotation agent: build a small prompt, ask, read the answer."""

from __future__ import annotations

import functools
from pathlib import Path

from agents.annotation.parse import parse_annotation
from agents.llm.base import ChatModel, Message
from agents.state import AnnotationState, ValidationIssue
from agents.validation.hints import hint_for
from agents.vocabulary import get_vocabulary

_PROMPTS = Path(__file__).parent / "prompts"


@functools.cache
def _template(name: str) -> str:
    return (_PROMPTS / name).read_text(encoding="utf-8")


def _feedback_block(state: AnnotationState) -> str:
    previous = state.current
    if previous is None:
        return ""
    lines = [f"Your previous annotation was: {previous.annotation}"]
    for issue in previous.errors:
        where = f" ({issue.tag})" if issue.tag else ""
        lines.append(f"- {issue.code}{where}: {issue.message} Hint: {issue.hint}")
    if state.pending_feedback:
        lines.append(f"Feedback: {state.pending_feedback}")
    lines.append("Write a corrected annotation.")
    return "\n".join(lines) + "\n"


def build_messages(state: AnnotationState, text: str) -> list[Message]:
    """System rules first (stable, cacheable), then the description-specific slice."""
    options = state.options
    vocabulary = get_vocabulary(options.schema_version)
    slice_lines = [f"{t.name}{'/#' if t.takes_value else ''}: {t.description}"
                   for t in vocabulary.candidates(text)]
    extension_rule = ("- Never extend tags with new terms; use existing tags only." if options.no_extend
                      else "- Extend a tag (Parent/New-term) only when no existing tag fits.")
    system = _template("system.txt").format(schema_version=options.schema_version,
                                            extension_rule=extension_rule)
    user = _template("user.txt").format(vocabulary="\n".join(slice_lines),
                                        examples=_template("examples.txt").strip(),
                                        description=text, feedback=_feedback_block(state))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def annotate_with_llm(state: AnnotationState, llm: ChatModel,
                            text: str) -> tuple[str, ValidationIssue | None]:
    reply = await llm.complete("annotation", build_messages(state, text))
    annotation = parse_annotation(reply.text)
    if annotation:
        return annotation, None
    return "", ValidationIssue(code="PARSE_ERROR", message=f"Could not read a HED string in: {reply.text[:200]!r}",
                               hint=hint_for("PARSE_ERROR"))
