"""The workflow that routes the agents.

annotate -> validate -> (invalid: feedback -> annotate ... until valid or the
attempt cap) -> evaluate -> (not faithful: refine from annotate, until the
iteration cap) -> assess (optional) -> end.  Every step is reported to the
observer as soon as it finishes, so callers can store and show it live.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from agents.annotation import annotate
from agents.assessment import assess
from agents.evaluation import evaluate
from agents.feedback import summarise_feedback
from agents.llm.base import ChatModel, LLMError, LLMReply, Message, constraint_of, render_messages
from agents.memory import MAX_PROMPT_EXAMPLES, most_similar, prompt_examples, provenance, reusable_example
from agents.offline.lexicon import get_lexicon
from agents.schema import check_version
from agents.state import (
    MAX_DESCRIPTION_CHARS,
    AgentName,
    AgentStep,
    AnnotationState,
    Draft,
    Iteration,
    LLMCall,
    MemoryExample,
    WorkflowOptions,
)
from agents.validation import validate_annotation
from agents.vision import VisionUnavailable, describe_image
from agents.vocabulary import get_vocabulary

logger = logging.getLogger(__name__)


class WorkflowObserver(Protocol):
    async def on_step(self, step: AgentStep, state: AnnotationState) -> None: ...

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None: ...


class NullObserver:
    async def on_step(self, step: AgentStep, state: AnnotationState) -> None:
        return None

    async def on_llm_call(self, call: LLMCall, iteration: int) -> None:
        return None


class InvalidInput(ValueError):
    """The request cannot start a run; the message names the problem and *field* the input at fault."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Cancelled(Exception):
    pass


@dataclass(frozen=True)
class StimulusImage:
    data: bytes
    mime_type: str


def check_description(description: str, *, has_image: bool = False) -> str:
    text = (description or "").strip()
    if not text and not has_image:
        raise InvalidInput("description is empty", "description")
    if len(text) > MAX_DESCRIPTION_CHARS:
        raise InvalidInput(f"description is {len(text)} characters; the limit is {MAX_DESCRIPTION_CHARS}",
                           "description")
    return text


def check_options(options: WorkflowOptions) -> WorkflowOptions:
    # One spelling per schema (a list's entries comma-joined, spaces gone), so caches and stored runs agree.
    options = replace(options, schema_version=check_version(options.schema_version))
    if not 1 <= options.max_validation_attempts <= 10:
        raise InvalidInput("max validation attempts must be between 1 and 10", "max_validation_attempts")
    if not 1 <= options.max_total_iterations <= 20:
        raise InvalidInput("max total iterations must be between 1 and 20", "max_total_iterations")
    return options


def _load_schema_tools(version: str) -> None:
    get_lexicon(get_vocabulary(version))


class _RecordingModel:
    """Passes calls through to the model and records each one in the state as it returns."""

    def __init__(self, inner: ChatModel, state: AnnotationState, observer: WorkflowObserver) -> None:
        self._inner, self._state, self._observer = inner, state, observer
        self.failed_agent: AgentName | None = None

    @property
    def constraint(self) -> str:
        # The annotator shapes its prompt by the model's decoding constraint.
        return constraint_of(self._inner)

    async def complete(self, agent: str, messages: list[Message], *,
                       response_format: dict[str, Any] | None = None,
                       extra_body: dict[str, Any] | None = None) -> LLMReply:
        try:
            reply = await self._inner.complete(agent, messages, response_format=response_format,
                                               extra_body=extra_body)
        except LLMError as exc:
            self.failed_agent = agent  # the run's failed step names whose call it was
            failed = LLMCall(agent=agent, model="", request=render_messages(messages), response="", error=str(exc),
                             error_kind=exc.kind)
            await self._observer.on_llm_call(failed, len(self._state.iterations))
            raise
        self._state.llm_calls.append(reply.call)
        await self._observer.on_llm_call(reply.call, len(self._state.iterations))
        return reply


class _Run:
    def __init__(self, state: AnnotationState, llm: ChatModel | None, observer: WorkflowObserver,
                 should_cancel: Callable[[], Awaitable[bool]] | None) -> None:
        self.state = state
        self.llm: ChatModel | None = _RecordingModel(llm, state, observer) if llm is not None else None
        self.observer = observer
        self.should_cancel = should_cancel

    async def step(self, agent: AgentName, action: str, started: float, *, input_summary: str = "",
                   output: str = "", issues: tuple = (), feedback: str = "", ok: bool = True) -> None:
        step = AgentStep(seq=len(self.state.steps) + 1, agent=agent, iteration=len(self.state.iterations),
                         action=action, input_summary=input_summary[:500], output=output,
                         duration_ms=(time.perf_counter() - started) * 1000, issues=issues,
                         feedback=feedback, ok=ok)
        self.state.steps.append(step)
        await self.observer.on_step(step, self.state)

    async def check_cancel(self) -> None:
        if self.should_cancel is not None and await self.should_cancel():
            raise Cancelled

    async def describe_image(self, image: StimulusImage) -> None:
        started = time.perf_counter()
        text = await describe_image(image.data, image.mime_type, self.llm)
        self.state.image_description = text
        await self.step("vision", "Described the stimulus image", started,
                        input_summary=f"{image.mime_type}, {len(image.data)} bytes", output=text)

    async def recall(self) -> None:
        """Say which accepted annotations this run draws on, before it writes anything."""
        state = self.state
        if not state.examples:
            return
        started = time.perf_counter()
        offered = ", ".join(e.source_id for e in state.examples)
        if self.llm is None:
            match = reusable_example(state)
            used = [match.source_id] if match else []
            action = (f"Reused {provenance(match)}" if match
                      else "No accepted annotation of this description to reuse")
        else:
            used = [e.source_id for e in prompt_examples(state.examples)]
            action = f"Offered {len(used)} accepted example{'s' if len(used) != 1 else ''} to the annotator"
        await self.step("memory", action, started, input_summary=f"similar accepted annotations: {offered}",
                        # Reuse is told by the annotation step itself; offered examples only here.
                        output=", ".join(used) or "none used", feedback=action + "." if self.llm and used else "")

    def take_draft(self) -> Iteration | None:
        """The draft as the first attempt, if the run has one and has written nothing yet (no model call)."""
        state = self.state
        if state.draft is None or state.iterations or not state.draft.annotation.strip():
            return None
        iteration = Iteration(number=1, annotation=state.draft.annotation.strip())
        if state.draft.note:
            iteration.notes.append(state.draft.note)
            state.notes.append(state.draft.note)
        state.iterations.append(iteration)
        return iteration

    async def annotate_until_valid(self) -> bool:
        """One refinement round: annotate and validate until valid or a cap is hit."""
        opts = self.state.options
        for attempt in range(1, opts.max_validation_attempts + 1):
            if len(self.state.iterations) >= opts.max_total_iterations:
                return False
            await self.check_cancel()
            started = time.perf_counter()
            feedback_in = self.state.pending_feedback
            drafted = self.take_draft()
            iteration = drafted or await annotate(self.state, self.llm)
            self.state.pending_feedback = ""
            action = f"Wrote attempt {iteration.number}"
            if drafted is not None:
                action = "Took the column draft as attempt 1"
            elif iteration.notes:
                # The note's headline ("reused the accepted annotation of X"); the note itself goes to feedback.
                headline = iteration.notes[0].split(":")[0].split(" (")[0].rstrip(".")
                action += ": " + headline[:1].lower() + headline[1:]
            await self.step("annotation", action, started, input_summary=feedback_in or self.state.description,
                            output=iteration.annotation, feedback=" ".join(iteration.notes))
            started = time.perf_counter()
            parse_issues = list(iteration.issues)
            # hedtools is synchronous and slow on first use; keep the event loop (shared with
            # websockets in the embedded server) free while it works.
            issues = parse_issues + (await asyncio.to_thread(validate_annotation, self.state)
                                     if iteration.annotation else [])
            iteration.issues = issues
            errors = iteration.errors
            action = "Valid" if not errors else f"Found {len(errors)} error{'s' if len(errors) != 1 else ''}"
            await self.step("validation", action, started, input_summary=iteration.annotation,
                            output=", ".join(i.code for i in errors) or "no errors", issues=tuple(issues),
                            ok=not errors)
            if not errors:
                return True
            if attempt == opts.max_validation_attempts or len(self.state.iterations) >= opts.max_total_iterations:
                return False
            await self.check_cancel()
            started = time.perf_counter()
            feedback = await summarise_feedback(self.state, self.llm)
            await self.step("feedback", "Summarised the errors for the next attempt", started,
                            input_summary=", ".join(i.code for i in errors), output=feedback, feedback=feedback)
        return False

    async def run(self, image: StimulusImage | None) -> AnnotationState:
        state, opts = self.state, self.state.options
        # The first use of a schema version loads it (seconds) and indexes it; the LLM path and the
        # evaluation/assessment agents touch it on the event loop, so load it off the loop first.
        await asyncio.to_thread(_load_schema_tools, opts.schema_version)
        if image is not None:
            await self.describe_image(image)
        await self.recall()
        previous = None
        while True:
            if not await self.annotate_until_valid():
                last_valid = next((it for it in reversed(state.iterations) if it.is_valid), None)
                if last_valid is None:
                    state.status = "invalid"
                else:
                    # A refinement that never validated must not throw away a valid annotation.
                    state.selected = last_valid.number
                    state.status = "succeeded"
                break
            if state.annotation == previous:
                # The annotator produced the same answer again: refining further cannot help.
                state.status = "succeeded"
                break
            previous = state.annotation
            await self.check_cancel()
            started = time.perf_counter()
            # A column's draft was written seeing its sibling levels, in one request for the column: it is
            # judged by the rule-based checker and kept (a refinement of this level alone, blind to its
            # siblings, would undo what tells them apart); the verdict stays for the reviewer.
            drafted = state.draft is not None
            evaluation = await evaluate(state, None if drafted else self.llm)
            verdict = "Faithful" if evaluation.is_faithful else (
                "Not faithful: kept the column's draft for review" if drafted else "Not faithful: refine")
            await self.step("evaluation", verdict, started, input_summary=state.annotation,
                            output=evaluation.feedback or "faithful", feedback=evaluation.feedback,
                            ok=evaluation.is_faithful)
            if evaluation.is_faithful or drafted or len(state.iterations) >= opts.max_total_iterations:
                state.status = "succeeded"
                break
        if state.status == "succeeded" and opts.run_assessment:
            await self.check_cancel()
            started = time.perf_counter()
            assessment = await assess(state, self.llm)
            await self.step("assessment", "Complete" if assessment.is_complete else "Incomplete", started,
                            input_summary=state.annotation, output=assessment.feedback,
                            feedback=assessment.feedback, ok=assessment.is_complete)
        return state


async def run_workflow(
    description: str,
    options: WorkflowOptions | None = None,
    *,
    llm: ChatModel | None = None,
    observer: WorkflowObserver | None = None,
    should_cancel: Callable[[], Awaitable[bool]] | None = None,
    image: StimulusImage | None = None,
    examples: Sequence[MemoryExample] = (),
    draft: Draft | None = None,
) -> AnnotationState:
    """Run every agent for *description* and return the final state.

    Raises :class:`InvalidInput` before any step when the request is unusable.
    A model that cannot be reached ends the run with status ``failed`` and a
    one-line ``error``; a cancellation ends it with status ``cancelled``.

    *examples* are accepted annotations of similar descriptions (the portal's memory; pick them
    with :func:`agents.memory.most_similar`): the most similar few go into a model's prompt, and
    the offline annotator reuses one whose description is the same after normalisation.  Which
    were used ends up in ``state.examples_used`` and in a ``memory`` step.

    A *draft* (say, a dataset column's, written with its sibling levels in one request) is the first
    attempt: the annotation step takes it without asking a model, then it is validated and evaluated,
    and fed back and refined if need be, like any attempt.
    """
    options = check_options(options or WorkflowOptions())
    text = check_description(description, has_image=image is not None)
    state = AnnotationState(description=text, options=options, draft=draft)
    # The caller may send many: keep the closest few that are similar enough to teach anything.
    state.examples = most_similar(text, list(examples), k=MAX_PROMPT_EXAMPLES)
    runner = _Run(state, llm, observer or NullObserver(), should_cancel)
    try:
        await runner.run(image)
    except Cancelled:
        state.status = "cancelled"
        state.error = "cancelled by the user"
    except (LLMError, VisionUnavailable) as exc:
        state.status = "failed"
        state.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        logger.warning("run failed: %s", state.error)
        if isinstance(exc, LLMError):
            # The run's page shows why it stopped where it stopped, as a step of the agent whose call failed.
            agent = getattr(runner.llm, "failed_agent", None) or "annotation"
            await runner.step(agent, "The model's call failed; the run stops", time.perf_counter(),
                              output=state.error, ok=False)
    return state
