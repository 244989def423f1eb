"""Annotation agent entry point: an LLM when one is configured, else the offline annotator."""

from __future__ import annotations

import asyncio
import logging

from agents.annotation.llm_annotator import annotate_with_llm
from agents.llm.base import ChatModel
from agents.memory import exact_match, prompt_examples, provenance, reusable_example
from agents.offline import annotate_offline, find_events
from agents.state import AnnotationState, Iteration

logger = logging.getLogger(__name__)

# Events named one by one in a note; a long narrative is summarised by its count.
_NOTE_EVENTS = 6
_NOTE_EVENT_CHARS = 80
# From this many events on, the description reads as a whole trial rather than one event.
LONG_NARRATIVE_EVENTS = 8


def _rejected_tags(state: AnnotationState) -> set[str]:
    """Tags the validator rejected in any earlier attempt, never to be offered again."""
    return {i.tag.split("/")[0] for it in state.iterations for i in it.errors if i.tag}


def events_note(events: list[str] | tuple[str, ...], *, split: bool) -> str:
    """Tell the reader the description holds several events and what became of them."""
    shown = [f"{n}) {e if len(e) <= _NOTE_EVENT_CHARS else e[: _NOTE_EVENT_CHARS - 1].rstrip() + '…'}"
             for n, e in enumerate(events[:_NOTE_EVENTS], 1)]
    if len(events) > _NOTE_EVENTS:
        shown.append(f"and {len(events) - _NOTE_EVENTS} more")
    how = ("each is annotated as its own top-level group" if split
           else "the annotator was asked for one top-level group per event")
    note = f"Multi-event description: it tells of {len(events)} separate events; {how}: {'; '.join(shown)}."
    if len(events) >= LONG_NARRATIVE_EVENTS:
        note += " HED annotates one event per row of events.tsv: consider one row per event."
    return note


def _add_note(state: AnnotationState, iteration: Iteration, note: str) -> None:
    iteration.notes.append(note)
    if note not in state.notes:
        state.notes.append(note)


async def annotate(state: AnnotationState, llm: ChatModel | None) -> Iteration:
    """Write the next attempt and append it to ``state.iterations``."""
    number = len(state.iterations) + 1
    text = state.description
    if state.image_description:
        text = f"{text}\n{state.image_description}".strip()
    options = state.options
    reused = reusable_example(state) if llm is None else None
    if reused is not None:
        # A reviewer's accepted annotation of the same description beats a fresh guess; it is still validated.
        iteration = Iteration(number=number, annotation=reused.annotation)
        _add_note(state, iteration, f"Reused {provenance(reused)} (same description after normalisation).")
        if reused.source_id not in state.examples_used:
            state.examples_used.append(reused.source_id)
    elif llm is None:
        # Synchronous and schema-bound: off the event loop, like validation.
        result = await asyncio.to_thread(annotate_offline, text, schema_version=options.schema_version,
                                         no_extend=options.no_extend, avoid=_rejected_tags(state))
        iteration = Iteration(number=number, annotation=result.annotation)
        rejected = exact_match(state.description, state.examples)
        if rejected is not None:
            _add_note(state, iteration, f"Did not reuse {provenance(rejected)}: it failed validation here; "
                                        "annotated afresh.")
        if result.events:
            state.events = list(result.events)
            _add_note(state, iteration, events_note(result.events, split=True))
    else:
        if number == 1:
            state.events = list(await asyncio.to_thread(find_events, text, schema_version=options.schema_version))
        annotation, parse_issue = await annotate_with_llm(state, llm, text)
        iteration = Iteration(number=number, annotation=annotation)
        for example in prompt_examples(state.examples):
            if example.source_id not in state.examples_used:
                state.examples_used.append(example.source_id)
        if len(state.events) > 1:
            _add_note(state, iteration, events_note(state.events, split=False))
        if parse_issue is not None:
            # A reply we could not read is fed back exactly like a validation error.
            iteration.issues.append(parse_issue)
    state.iterations.append(iteration)
    return iteration
