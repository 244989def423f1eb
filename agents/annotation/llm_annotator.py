"""The LLM path of the annotation agent: build a small prompt, ask, read the answer.

The prompt carries only what one description needs: the HED rules in compact form and a few
worked examples (the system message, identical for every call so providers can cache it),
then the vocabulary slice retrieved for the description and, on later attempts, the
validator's errors with their hints.  Under a decoding constraint the model answers with a
structure whose tags can only come from that slice (see :mod:`agents.annotation.constrained`).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from agents.annotation.constrained import MODES, StructuredOutput, TagForm, tag_forms, tag_lines
from agents.annotation.parse import MAX_ANNOTATION_CHARS, parse_annotation
from agents.annotation.structure import structure_of
from agents.llm.base import ChatModel, Message, constraint_of
from agents.memory import prompt_examples
from agents.offline.lexicon import candidate_tags
from agents.state import AnnotationState, ValidationIssue
from agents.validation.hints import hint_for
from agents.vocabulary import TagInfo, get_vocabulary

_PROMPTS = Path(__file__).parent / "prompts"
SLICE_SIZE = 40
_DESCRIPTION_CHARS = 110
# An accepted example's description is shown up to this length (its annotation whole, see agents.memory).
_EXAMPLE_DESCRIPTION_CHARS = 400
# Events listed one by one in the prompt; a longer narrative is summarised by its count.
_MAX_LISTED_EVENTS = 12
_EVENT_CHARS = 160
_QUANTITY = re.compile(r"\d(?:[\d.,]*\d)?\s*-?\s*([A-Za-z]+)\b")
# The general value tag for each kind of quantity a description may state ("200 ms", "1 kHz").
_VALUE_TAGS = ("Time-value", "Frequency", "Distance", "Angle", "Sound-volume", "Temperature", "Weight", "Speed")


@functools.cache
def _template(name: str) -> str:
    return (_PROMPTS / name).read_text(encoding="utf-8")


@functools.cache
def system_prompt(schema_version: str, no_extend: bool, structured: bool) -> str:
    """The stable first message: rules, answer format and examples; one per configuration."""
    pairs = _template("examples.txt").strip().splitlines()
    examples = []
    for description, hed in zip(pairs[::2], pairs[1::2], strict=True):
        answer = json.dumps({"tags": structure_of(hed)}) if structured else hed
        examples.append(f"Description: {description}\nAnswer: {answer}")
    extension_rule = ("Never extend tags with new terms; use existing tags only." if no_extend or structured
                      else "Extend a tag (Parent/New-term) only when no listed tag fits.")
    answer_format = _template("answer_structured.txt" if structured else "answer_text.txt").strip()
    return _template("system.txt").format(schema_version=schema_version, extension_rule=extension_rule,
                                          answer_format=answer_format.format(),
                                          examples="\n".join(examples)).strip()


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    if 0 < end < _DESCRIPTION_CHARS:
        return text[: end + 1]
    return text if len(text) <= _DESCRIPTION_CHARS else text[: _DESCRIPTION_CHARS - 1].rstrip() + "…"


def vocabulary_slice(state: AnnotationState, text: str) -> tuple[list[TagForm], dict[str, TagInfo]]:
    """The tag forms offered for *text*, and their schema entries by name."""
    vocabulary = get_vocabulary(state.options.schema_version)
    infos = candidate_tags(text, vocabulary, limit=SLICE_SIZE)
    known = {i.name for i in infos}
    for unit in dict.fromkeys(_QUANTITY.findall(text)):
        for name in _VALUE_TAGS:
            info = vocabulary.get(name)
            if info is not None and info.name not in known and vocabulary.unit_spelling(name, unit):
                infos.append(info)
                known.add(info.name)
    return tag_forms(infos, vocabulary), {i.name: i for i in infos}


def _issue_line(issue: ValidationIssue) -> str:
    where = f" ({issue.tag})" if issue.tag else ""
    message = " ".join(issue.message.split())[:200]
    hint = f" Hint: {issue.hint}" if issue.hint else ""
    return f"- {issue.code}{where}: {message}{hint}"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _memory_block(state: AnnotationState, structured: bool) -> str:
    lines = []
    for example in prompt_examples(state.examples):
        hed = " ".join(example.annotation.split())
        answer = json.dumps({"tags": structure_of(hed)}) if structured else hed
        lines.append(f"Description: {_clip(example.description, _EXAMPLE_DESCRIPTION_CHARS)}\nAnswer: {answer}")
    if not lines:
        return ""
    return _template("memory.txt").format(examples="\n".join(lines)).strip() + "\n\n"


def _events_block(state: AnnotationState) -> str:
    if len(state.events) < 2:
        return ""
    listed = [f"{n}. {_clip(text, _EVENT_CHARS)}" for n, text in enumerate(state.events[:_MAX_LISTED_EVENTS], 1)]
    if len(state.events) > _MAX_LISTED_EVENTS:
        listed.append(f"... and {len(state.events) - _MAX_LISTED_EVENTS} more, one group each.")
    return _template("events.txt").format(count=len(state.events), events="\n".join(listed)).strip() + "\n"


def _feedback_block(state: AnnotationState) -> str:
    previous = state.current
    if previous is None:
        return ""
    # The attempt number keeps a retry from being the very request the response cache already answered.
    lines = [f"Attempt {previous.number + 1}. Your previous annotation: {previous.annotation or '(unreadable)'}"]
    errors = previous.errors
    if errors:
        lines.append("It failed validation:")
        seen: set[tuple[str, str]] = set()
        for issue in errors:
            if (issue.code, issue.tag) not in seen:
                seen.add((issue.code, issue.tag))
                lines.append(_issue_line(issue))
        # The feedback agent repeats the errors; only its summary adds anything.
        summary = state.pending_feedback.partition("Summary:")[2].strip()
        if summary:
            lines.append(f"Advice: {summary}")
        lines.append("Write a corrected annotation.")
    else:
        if state.pending_feedback:
            lines.append(f"A reviewer said: {state.pending_feedback.strip()}")
        lines.append("Write an improved annotation.")
    return "\n".join(lines) + "\n"


def build_messages(state: AnnotationState, text: str, *, structured: bool = False,
                   forms: list[TagForm] | None = None, infos: dict[str, TagInfo] | None = None) -> list[Message]:
    """System rules first (stable, cacheable), then the description-specific slice."""
    if forms is None or infos is None:
        forms, infos = vocabulary_slice(state, text)
    options = state.options
    system = system_prompt(options.schema_version, options.no_extend, structured)
    user = _template("user.txt").format(vocabulary=tag_lines(forms, infos, _first_sentence), description=text,
                                        memory=_memory_block(state, structured), events=_events_block(state),
                                        feedback=_feedback_block(state))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def annotate_with_llm(state: AnnotationState, llm: ChatModel,
                            text: str) -> tuple[str, ValidationIssue | None]:
    """One attempt: the annotation read from the model's answer, or a PARSE_ERROR issue."""
    mode = constraint_of(llm)
    forms, infos = vocabulary_slice(state, text)
    structured = mode in MODES and bool(forms)
    messages = build_messages(state, text, structured=structured, forms=forms, infos=infos)
    if structured:
        output = StructuredOutput(mode, forms)
        response_format, extra_body = output.request()
        reply = await llm.complete("annotation", messages, response_format=response_format,
                                   extra_body=extra_body)
        annotation = output.read(reply.text)
    else:
        reply = await llm.complete("annotation", messages)
        annotation = parse_annotation(reply.text)
    if len(annotation) > MAX_ANNOTATION_CHARS:
        # Nothing of it is kept: a cut annotation would be broken HED, and the whole one costs its size per copy.
        return "", ValidationIssue(code="PARSE_ERROR", message=f"The reply's annotation has {len(annotation):,} "
                                   f"characters; the limit is {MAX_ANNOTATION_CHARS:,}.", hint=hint_for("PARSE_ERROR"))
    if annotation:
        return annotation, None
    return "", ValidationIssue(code="PARSE_ERROR", message=f"Could not read a HED string in: {reply.text[:200]!r}",
                               hint=hint_for("PARSE_ERROR"))
