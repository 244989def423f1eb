"""Event-level tags: what kind of event a description tells of, following HED conventions.

The conventions are those of the HED specification's annotation chapters and of hedtools'
``EventChecker``: exactly one event type per event; a task role on every task event
(Experimental-stimulus, Participant-response, Cue, ...); a modality on a sensory event; an
action in an agent's action. A statement about an outcome ("the answer was wrong") judges an
event rather than being one, so it gets neither an event type nor an inferred role.

The inference is two tables: the facts a description establishes (``event_facts``) and the rules
that turn them into tags (``event_rules``); what a tag is comes from ``event_kinds``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agents.offline.event_facts import read_facts
from agents.offline.event_kinds import (
    BOUNDARY_WORDS,
    EVENT_TYPES,
    IMPLICIT_TAGS,
    OUTCOMES,
    PRESENTED_ROLES,
    RESPONSE_ACTIONS,
    STIMULUS_ROLES,
    STRUCTURE_NOUNS,
    TASK_ROLES,
    Clues,
    kind_of,
)
from agents.offline.event_rules import apply_rules

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

__all__ = [
    "BOUNDARY_WORDS", "EVENT_TYPES", "IMPLICIT_TAGS", "OUTCOMES", "RESPONSE_ACTIONS", "STIMULUS_ROLES",
    "STRUCTURE_NOUNS", "TASK_ROLES", "Clues", "EventFrame", "infer_event", "kind_of", "omitted_by_convention",
]


@dataclass(frozen=True)
class EventFrame:
    tags: tuple[str, ...]  # event-level tags to put first
    sensory: bool
    acting: bool
    screen: bool = False  # what is seen is on the computer screen: (Visual-presentation, Computer-screen)
    # With both a presentation and an action, the action's own event tags (a second event).
    action_tags: tuple[str, ...] = ()
    dropped: frozenset[str] = field(default_factory=frozenset)  # tags the conventions leave out
    # The participant's own act in the task: Participant-response says who acted.
    response: bool = False

    @property
    def names_agent(self) -> bool:
        """Whether the participant, as the agent, still belongs: an act of theirs that no role says is theirs."""
        return self.acting and not self.response

    def keeps(self, tag: str) -> bool:
        """Whether a loose (ungrouped) tag still belongs once the event type is known."""
        if tag in self.dropped:
            return False
        if tag == "Experimental-stimulus":
            return self.sensory  # a stimulus only spoken of ("stimuli are to be counted") presents nothing
        if tag == "Experiment-participant":
            return self.names_agent  # "the listener will hear sounds": nobody acts yet
        return True


def infer_event(vocab: Vocabulary, tags: set[str], lemmas: set[str], clues: Clues | None = None) -> EventFrame:
    """The event-level tags of a description with *tags*: its facts, then the convention rules in order."""
    facts = read_facts(vocab, tags, lemmas, clues or Clues())
    draft = apply_rules(facts)
    return EventFrame(tuple(draft.top), facts.sensory, facts.acting, draft.screen, tuple(draft.action_top),
                      frozenset(draft.dropped), facts.acting and facts.response)


def omitted_by_convention(term_tags: set[str], present: set[str]) -> bool:
    """True if HED's conventions, not an oversight, leave *term_tags* out of an annotation holding *present*.

    An event word ("appears") is said by the one event type an event gets, or by none in a
    statement about an outcome; "the task" is a topic unless a boundary of it; "imagine" is said
    by Imagined-action; a stimulus role in a response or a judgement names what was answered;
    the stimulus or response that a cue, feedback or an instruction speaks of belongs to other events;
    a condition has no event role.
    """
    if not term_tags:
        return False
    if term_tags <= EVENT_TYPES | {"Task"}:
        return True
    if term_tags <= {"Imagine"}:
        return "Imagined-action" in present
    if term_tags <= {"Attend-to", "Focused-attention"}:
        return "Selective-attention" in present  # "attend only to"
    if term_tags <= {"Experimental-stimulus", "Participant-response"} and present & PRESENTED_ROLES:
        return True  # "feedback on the last response": one task role per event
    if term_tags <= TASK_ROLES and "Condition-variable" in present and not present & EVENT_TYPES:
        return True  # a condition is no event, so it has no event role
    judged = bool(present & (OUTCOMES | {"Participant-response"})) and "Sensory-event" not in present
    return term_tags <= STIMULUS_ROLES and judged
