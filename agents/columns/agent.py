"""Column agent: one request writes the HED of every level of a column, then validation is fed back.

A column's levels are annotated together, with the dataset's README, the task's description and
instructions and the other columns in the prompt, so each level's HED can say what sets it apart from its
siblings. The reply is validated level by level with hedtools; the levels with errors (or that the reply
left out, or all of them when it could not be read) go back in one follow-up request per attempt, with
each level's errors and hints. After the attempt cap a level still invalid gets the offline annotator's
HED, so every level ends valid. Each request is kept in :attr:`ColumnResult.calls` for the caller to store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from agents.columns.context import ColumnContext, ColumnLevel, ColumnResult, LevelDraft
from agents.columns.prompt import build_messages, clip, feedback_message, vocabulary_slice
from agents.columns.reply import ColumnAnswer, ReplyFormat, expand_definitions
from agents.llm.base import ChatModel, LLMError, LLMTimeout, Message, constraint_of, render_messages
from agents.offline import annotate_offline
from agents.schema import DEFAULT_SCHEMA_VERSION
from agents.state import LLMCall, ValidationIssue
from agents.validation import validate_hed

logger = logging.getLogger(__name__)

# Levels asked for in one request: a column longer than this takes one request (and its feedback) per batch,
# so that a reply stays well within an endpoint's token limit.
MAX_LEVELS_PER_REQUEST = 20
# A batch the endpoint cannot answer in time is asked again in halves, down to this many levels: a slow local
# model answers four levels where twenty time out, and its levels keep the column's context.
MIN_LEVELS_PER_REQUEST = 4
# The agent name requests go under: the column's levels are annotations, answered by the annotation model.
AGENT = "annotation"
_REPLY_CHARS = 6000  # of a previous reply, repeated in the follow-up conversation
SAME_AS_SIBLING = "SAME_AS_SIBLING"

Checked = dict[str, tuple[str, list[ValidationIssue]]]  # level -> (HED, its errors)


def _check(levels: dict[str, str], definitions: dict[str, str], schema_version: str, no_extend: bool) -> Checked:
    out: Checked = {}
    for value, hed in levels.items():
        expanded = expand_definitions(hed, definitions)
        issues = validate_hed(expanded, schema_version, no_extend=no_extend)
        out[value] = (expanded, [i for i in issues if i.is_error])
    return out


def _same_as_sibling(hed: str, siblings: list[str]) -> ValidationIssue:
    return ValidationIssue(code=SAME_AS_SIBLING, message=f"Levels {', '.join(siblings)} have this same HED: {hed}",
                           hint="Tag what sets each of these levels apart from the others: with the same HED "
                           "their rows cannot be told apart.")


def _clashes(good: dict[str, str], settled: dict[str, str]) -> dict[str, ValidationIssue]:
    """Levels whose (valid) HED is the very HED of a sibling, each with an issue naming them all."""
    by_hed: dict[str, list[str]] = {}
    for value, hed in {**settled, **good}.items():
        by_hed.setdefault(" ".join(hed.split()).casefold(), []).append(value)
    out = {}
    for values in by_hed.values():
        if len(values) > 1:
            for value in values:
                if value in good:
                    out[value] = _same_as_sibling(good[value], values)
    return out


class _Batch:
    """One batch of a column's levels through the ask -> validate -> feed back loop."""

    def __init__(self, context: ColumnContext, levels: Sequence[ColumnLevel], model: ChatModel,
                 result: ColumnResult, *, schema_version: str, max_attempts: int, no_extend: bool) -> None:
        self.context, self.levels, self.model, self.result = context, list(levels), model, result
        self.schema_version, self.max_attempts, self.no_extend = schema_version, max_attempts, no_extend
        self.valid: dict[str, str] = {}
        self.held: dict[str, str] = {}  # valid HED that repeats a sibling's: kept if nothing better comes
        self.errors: dict[str, list[ValidationIssue]] = {}
        self.asked: dict[str, int] = {level.value: 0 for level in self.levels}
        self.answered = False
        self.too_long = False  # the first request timed out: the caller asks again in smaller batches

    async def ask(self, messages: list[Message], pending: list[str], fmt: ReplyFormat) -> str | None:
        response_format, extra_body = fmt.request(pending)
        try:
            reply = await self.model.complete(AGENT, messages, response_format=response_format, extra_body=extra_body)
        except LLMError as exc:
            self.result.calls.append(LLMCall(agent=AGENT, model="", request=render_messages(messages), response="",
                                             error=str(exc)))
            if isinstance(exc, LLMTimeout) and not self.answered and len(self.levels) > MIN_LEVELS_PER_REQUEST:
                self.too_long = True
                logger.info("column %s: %d levels took too long; asking again in halves", self.context.column,
                            len(self.levels))
                return None
            self.result.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            logger.warning("column %s: the model could not be reached: %s", self.context.column, self.result.error)
            return None
        self.result.calls.append(reply.call)
        self.answered = True
        for value in pending:
            self.asked[value] += 1
        return reply.text

    def take(self, answer: ColumnAnswer) -> None:
        result = self.result
        result.role = result.role or answer.role  # type: ignore[assignment]
        result.definitions.update(answer.definitions)
        for question in answer.questions:
            if question not in result.questions:
                result.questions.append(question)

    async def run(self) -> None:
        forms, infos = await asyncio.to_thread(vocabulary_slice, self.context, self.levels, self.schema_version)
        fmt = ReplyFormat(constraint_of(self.model), forms)
        request = build_messages(self.context, self.levels, schema_version=self.schema_version,
                                 no_extend=self.no_extend, structured=fmt.structured is not None, forms=forms,
                                 infos=infos)
        messages = request
        pending = [level.value for level in self.levels]
        for attempt in range(1, self.max_attempts + 1):
            text = await self.ask(messages, pending, fmt)
            if self.too_long:
                return
            if text is None:
                break
            answer = fmt.read(text, pending)
            self.take(answer)
            checked = await asyncio.to_thread(_check, answer.levels, self.result.definitions, self.schema_version,
                                              self.no_extend)
            good = {value: hed for value, (hed, errors) in checked.items() if not errors}
            bad = {value: found for value, found in checked.items() if found[1]}
            for value, issue in _clashes(good, self.valid).items():
                self.held[value] = good.pop(value)
                bad[value] = (self.held[value], [issue])
            self.valid.update(good)
            for value in good:
                self.held.pop(value, None)
                self.errors.pop(value, None)
            self.errors.update({value: errors for value, (_, errors) in bad.items()})
            missing = [value for value in pending if value not in checked]
            pending = [value for value in pending if value in bad or value in missing]
            if not pending or attempt == self.max_attempts:
                break
            problem = (f"Your reply could not be read: {answer.problem}." if answer.problem
                       else "These levels need another answer:")
            # The request, the model's last reply and what to fix: the prompt stays bounded however many rounds.
            messages = [*request, {"role": "assistant", "content": clip(text, _REPLY_CHARS)},
                        feedback_message(attempt + 1, problem, bad, missing, pending)]
        await self.settle()

    async def settle(self) -> None:
        """Each level's draft: the model's valid HED, else (after the cap) the offline annotator's."""
        questions = {}
        for level, question in self.result.questions:
            questions.setdefault(level, question)
        for level in self.levels:
            value = level.value
            hed = self.valid.get(value) or self.held.get(value)
            source = "model"
            if not hed:
                offline = await asyncio.to_thread(annotate_offline, level.text, schema_version=self.schema_version,
                                                  no_extend=self.no_extend)
                hed, source = offline.annotation, "offline"
            self.result.drafts[value] = LevelDraft(
                value=value, annotation=hed, source=source, attempts=self.asked[value],
                issues=tuple(self.errors.get(value, ())) if source == "offline" else (),
                question=questions.get(value, ""))


async def annotate_column(context: ColumnContext, model: ChatModel, *, schema_version: str = DEFAULT_SCHEMA_VERSION,
                          max_attempts: int = 3, no_extend: bool = False) -> ColumnResult:
    """Write valid HED for every level of *context* without an annotation, asking *model* once per attempt.

    Levels are asked for at most :data:`MAX_LEVELS_PER_REQUEST` at a time (one request, plus one per feedback
    round, per batch); a batch whose first request times out is asked again in halves, down to
    :data:`MIN_LEVELS_PER_REQUEST` levels. A model that cannot be reached is not raised: the result's ``error``
    says why, the failed request is in ``calls``, and the levels it had not answered validly get the offline
    annotator's HED.
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    result = ColumnResult(column=context.column)
    targets = context.targets
    size = MAX_LEVELS_PER_REQUEST
    batches = [targets[start:start + size] for start in range(0, len(targets), size)]
    while batches:
        levels = batches.pop(0)
        batch = _Batch(context, levels, model, result, schema_version=schema_version,
                       max_attempts=max_attempts if not result.error else 0, no_extend=no_extend)
        await batch.run()
        if batch.too_long:
            half = (len(levels) + 1) // 2
            batches[:0] = [levels[:half], levels[half:]]
    by_source = {"model": 0, "offline": 0}
    for draft in result.drafts.values():
        by_source[draft.source] += 1
    logger.info("column %s: %d level(s) in %d request(s); %d from the model, %d offline", context.column,
                len(result.drafts), result.requests, by_source["model"], by_source["offline"])
    return result
