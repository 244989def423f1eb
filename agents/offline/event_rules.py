"""The event-level tags HED conventions call for, as a table of small rules applied in order.

Each rule reads the description's ``EventFacts`` and adds to the ``Draft`` of its event: the
event type, the modality, the task role, and the tags the conventions leave out. The conventions
are those of the HED specification's annotation chapters and of hedtools' ``EventChecker``. Order
matters: a rule may look at what earlier rules wrote (``RULES`` is that order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agents.offline.event_facts import EventFacts
from agents.offline.event_kinds import (
    LANGUAGE,
    NOT_STIMULUS,
    OUTCOMES,
    RESPONSE_ACTIONS,
    SCREEN_ITEMS,
    SOUNDS,
    STIMULUS_ROLES,
    TASK_ROLES,
    under,
)


@dataclass
class Draft:
    """The event-level tags decided so far."""

    top: list[str] = field(default_factory=list)  # event-level tags to put first
    action_top: list[str] = field(default_factory=list)  # a second (action) event's tags, beside a presentation
    added: list[str] = field(default_factory=list)  # task roles to add after the event type, unless already tagged
    dropped: set[str] = field(default_factory=set)  # tags the conventions leave out
    screen: bool = False  # (Visual-presentation, Computer-screen)


def roots(sensory: bool, acting: bool, structure: bool, control: bool) -> tuple[str, ...]:
    """One event type per event: a presentation or an action first, then the experiment's own events."""
    if sensory and acting:
        return ("Sensory-event", "Agent-action")
    if acting:
        return ("Agent-action",)
    if sensory:
        return ("Sensory-event",)
    if control:
        return ("Experiment-control",)  # "the recording starts" is about the apparatus
    return ("Experiment-structure",) if structure else ()


def imagined_action(f: EventFacts, d: Draft) -> None:
    """An imagined movement is a task action that is never carried out: Imagined-action."""
    if f.imagines:
        d.added.append("Imagined-action")


def sensory_event(f: EventFacts, d: Draft) -> None:
    """A presentation is a Sensory-event with its modality; a view or a channel implies the modality."""
    if f.sensory:
        d.top.append("Sensory-event")
        d.top.extend(sorted(m for m in f.modalities if m not in f.tags))


def implied_modality(f: EventFacts, d: Draft) -> None:
    """With no sense named, the things presented say it: sounds are heard, other stimuli seen.

    Words that are spoken or played are heard, not read; a dog in "a dog barking" is the sound's
    source, while a picture of a dog is seen; a cue or feedback whose modality goes unsaid is most often shown.
    """
    if not f.sensory or f.modalities:
        return
    vocab = f.vocab
    sounds = [t for t in f.items if under(vocab, t, SOUNDS)]
    seen = [t for t in f.stimulus_items if t not in sounds and not (sounds and under(vocab, t, LANGUAGE))]
    if sounds:
        d.top.append("Auditory-presentation")
    if seen or (not sounds and (f.presented_role or f.clues.presented
                                or any(not under(vocab, t, NOT_STIMULUS) for t in f.items))):
        d.top.append("Visual-presentation")


def on_screen(f: EventFacts, d: Draft) -> None:
    """What an experiment shows on its display is on the computer screen, unless another display is named."""
    if not f.sensory:
        return
    vocab = f.vocab
    visual = "Visual-presentation" in d.top or "Visual-presentation" in f.modalities
    shown = "Computer-screen" in f.tags or any(under(vocab, t, SCREEN_ITEMS) for t in f.items)
    d.screen = visual and shown and not any(
        under(vocab, t, ("Display-device",)) and t != "Computer-screen" for t in f.items)


def signal_role(f: EventFacts, d: Draft) -> None:
    """The task role the wording gives a presentation.

    Shown or played to mark something, it is a signal: a Cue with the Intended-effect it is meant to
    have. A stimulus telling which response to make is a Go-signal. A cue telling the participant
    what to do is Instructional ("a cue telling the participant to attend to sounds").
    """
    clues, tags = f.clues, f.tags
    if f.sensory and clues.marks and not f.acting and not tags & (TASK_ROLES - {"Experimental-stimulus", "Cue"}):
        d.added.extend(["Intended-effect", "Cue"])
        d.dropped.add("Experimental-stimulus")
    elif f.sensory and clues.signalled & RESPONSE_ACTIONS and not f.presented_role:
        d.added.append("Go-signal")
    elif clues.directive and "Cue" in tags:
        d.added.append("Instructional")


def experimental_stimulus(f: EventFacts, d: Draft) -> None:
    """A presentation with no other task role is an Experimental-stimulus.

    A happening in the scene ("two cars collide") is seen, but the experiment presents nothing.
    """
    # The participant's response beside it is another event's role ("a target appears and the participant responds").
    roles = (f.tags | set(d.added)) & TASK_ROLES - ({"Participant-response"} if f.acting else set())
    if f.sensory and not roles and (f.stimulus_items or not f.happening):
        d.top.append("Experimental-stimulus")


def agent_action(f: EventFacts, d: Draft) -> None:
    """An act is an Agent-action (its own event beside a presentation) with its role and its agent.

    The participant's answer is a Participant-response; both keys at once cannot be told apart as
    one answer: HED's Indeterminate-action, the action role hedtools' EventChecker accepts in place
    of a task role. An act with no agent named and no response role gets the participant as agent.
    """
    if not f.acting:
        return
    into = d.action_top if f.sensory else d.top
    into.append("Agent-action")
    if f.response and f.clues.undecided and not f.tags & OUTCOMES:
        into.append("Indeterminate-action")
    elif f.response:
        into.append("Participant-response")
    if "agent" not in f.kinds.values() and not f.response:
        into.append("Experiment-participant")


def experiment_event(f: EventFacts, d: Draft) -> None:
    """Neither a presentation nor an act: Experiment-control for the apparatus, else Experiment-structure."""
    found = roots(f.sensory, f.acting, f.structure, f.control)
    if not f.sensory and not f.acting and found:
        d.top.append(found[0])


def condition_has_no_role(f: EventFacts, d: Draft) -> None:
    """HED's task roles are Task-event-roles: a condition is no event, so it has none.

    ("a condition in which attention shifts as instructed" is not an instruction.)
    """
    if f.clues.condition:
        d.added = []
        d.dropped |= {t for t in f.tags if f.vocab.is_under(t, "Task-event-role")}


def task_roles(f: EventFacts, d: Draft) -> None:
    """The roles gathered so far follow the event type, each once."""
    d.top.extend(t for t in d.added if t not in f.tags)


def one_task_role(f: EventFacts, d: Draft) -> None:
    """One task role per event: a cue, feedback or an instruction is what this event is for.

    The stimulus or the response it speaks of ("feedback on the last response") belongs to other events.
    """
    if f.presented_role:
        d.dropped |= f.tags & {"Experimental-stimulus", "Participant-response"}


def answered_stimulus(f: EventFacts, d: Draft) -> None:
    """A stimulus role word in a response or a judgement ("a false alarm to the target") names
    what was answered, not this event's role: only a sensory event has stimulus roles."""
    if not f.sensory and (f.acting or f.outcome or "Participant-response" in f.tags):
        d.dropped |= f.tags & STIMULUS_ROLES


def one_event_type(f: EventFacts, d: Draft) -> None:
    """Exactly one event type per event: an event word the inference did not choose goes."""
    d.dropped |= {t for t, k in f.kinds.items() if k == "event"} - set(d.top) - set(d.action_top)


def task_topic(f: EventFacts, d: Draft) -> None:
    """ "The task", "during the task": the topic, not a boundary of the task, unless Experiment-structure."""
    if "Experiment-structure" not in d.top:
        d.dropped.add("Task")


def imagine_said(f: EventFacts, d: Draft) -> None:
    """Imagined-action says "imagine", with the action itself kept."""
    if "Imagined-action" in d.top:
        d.dropped.add("Imagine")


Rule = Callable[[EventFacts, Draft], None]
# The conventions in the order they apply.
RULES: tuple[Rule, ...] = (
    imagined_action,
    sensory_event,
    implied_modality,
    on_screen,
    signal_role,
    experimental_stimulus,
    agent_action,
    experiment_event,
    condition_has_no_role,
    task_roles,
    one_task_role,
    answered_stimulus,
    one_event_type,
    task_topic,
    imagine_said,
)


def apply_rules(facts: EventFacts) -> Draft:
    """The event-level tags of one description: every rule of ``RULES``, in order."""
    draft = Draft()
    for rule in RULES:
        rule(facts, draft)
    return draft
