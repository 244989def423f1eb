"""What a description's tags and wording establish about its event, one HED convention at a time.

Each fact is read by a small function whose docstring says the convention it applies; the event
rules (``event_rules``) then turn the facts into event-level tags. The order of ``read_facts`` is
the order of dependence: a later fact may rest on earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.offline.event_kinds import (
    AGENTIVE,
    ATTENTION,
    BOUNDARY_WORDS,
    HAPPENINGS,
    OUTCOMES,
    PRESENTED_ROLES,
    RESPONSE_ACTIONS,
    STIMULUS_ITEMS,
    STRUCTURE_NOUNS,
    STRUCTURE_ORGS,
    Clues,
    kind_of,
    modality,
    under,
)

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary


@dataclass(frozen=True)
class EventFacts:
    """The facts one description's event-level tags follow from."""

    vocab: Vocabulary
    tags: set[str]
    lemmas: set[str]
    clues: Clues
    kinds: dict[str, str]  # each tag's kind (see ``kind_of``)
    items: list[str]
    stimulus_items: list[str]  # items that by themselves are a stimulus
    modalities: set[str]  # the senses the tags name, a view or a channel included
    presented_role: bool  # a cue, feedback, an instruction or a warning is what the event is
    imagines: bool  # an imagined action besides the word "imagine" itself
    actions: list[str]  # actions done in this event (not asked for, not a cue's content)
    agentive: list[str]  # deliberate, bodily actions among them
    happening: bool  # something happens to things ("two cars collide")
    mishap: bool
    physical: bool  # a physical answer to the task
    outcome: bool  # a judgement of an action, not an event of its own
    response: bool  # the participant's own act in the task
    acting: bool  # an Agent-action event
    sensory: bool  # a Sensory-event
    control: bool  # the experiment's machinery: Experiment-control
    structure: bool  # a boundary of part of the experiment: Experiment-structure


def _modalities(vocab: Vocabulary, kinds: dict[str, str]) -> set[str]:
    """A view or a channel ("on a black background", "binaurally") implies its modality."""
    return {m for t, k in kinds.items() if k == "modality" for m in [modality(vocab, t)] if m is not None}


def _imagines(actions: list[str], clues: Clues) -> bool:
    """An imagined movement is a task action never carried out: HED's Imagined-action."""
    return clues.imagined and bool([a for a in actions if a != "Imagine"])


def _actions_done(actions: list[str], tags: set[str], presented_role: bool, clues: Clues) -> list[str]:
    """What a cue or an instruction asks for, or a shown thing signals, has not happened yet."""
    if presented_role or "Instructional" in tags or clues.signalled:
        return []
    return actions


def _agentive(vocab: Vocabulary, actions: list[str]) -> list[str]:
    """Deliberate, bodily actions (moving, communicating, performing) are evidence of an Agent-action."""
    return [a for a in actions if a not in HAPPENINGS and under(vocab, a, AGENTIVE)]


def _physical(actions: list[str], clues: Clues, mishap: bool) -> bool:
    """A press, a touch or a spoken answer is the task's answer, unless imagined or an accident (a Mishap)."""
    return any(a in RESPONSE_ACTIONS for a in actions) and not clues.imagined and not mishap


def _outcome(tags: set[str], physical: bool, presented_role: bool, stimulus_items: list[str], clues: Clues) -> bool:
    """A statement about how an action turned out ("the answer was wrong") judges an event rather than being one;
    beside something presented ("a tone follows, and no answer is given") it says how the event went."""
    return (bool(tags & OUTCOMES) and not physical and not presented_role and not stimulus_items
            and not clues.presented)


def _response(tags: set[str], clues: Clues, agentive: list[str], *, physical: bool, presented_role: bool,
              outcome: bool, mishap: bool) -> bool:
    """A participant named as doing something deliberate in a task is responding (Participant-response).

    A vehicle that moves or an imagined movement is not a response, nor is an accident.
    """
    if physical:
        return True
    if presented_role or outcome or clues.imagined or mishap:
        return False
    participant = "Experiment-participant" in tags
    return "Participant-response" in tags or (participant and bool(tags & OUTCOMES or agentive or clues.made))


def _machinery(tags: set[str], kinds: dict[str, str], physical: bool) -> bool:
    """"The recording stops", "the amplifier fails": with nobody named, the experiment's machinery acts."""
    acts = bool({"Recording", "Mishap"} & tags or "marker" in kinds.values())
    return acts and not ("Experiment-participant" in tags or physical or "Participant-response" in tags
                         or "agent" in kinds.values())


def _sensory(tags: set[str], kinds: dict[str, str], clues: Clues, stimulus_items: list[str], *, acting: bool,
             attending: bool, presented_role: bool, happening: bool, outcome: bool) -> bool:
    """A Sensory-event presents something: a sense named (not merely attended to), a stimulus item,
    a cue or feedback (shown or played even when what it asks for is attention), a happening in view.

    What is withheld ("the face is not shown") presents nothing; a judgement is no presentation; a
    condition ("the condition in which subjects attend to tones") is a state events happen in.
    """
    sensory = "Sensory-event" in tags or (not attending and "modality" in kinds.values())
    if not sensory and not acting and (presented_role or (not attending and (stimulus_items or happening))):
        sensory = True
    sensory = sensory or clues.presented
    return sensory and not outcome and not clues.withheld and not clues.condition


def _control(tags: set[str], kinds: dict[str, str], mishap: bool) -> bool:
    """A data marker, the recording, or a Mishap nobody presented or did: an event of the experiment's control."""
    return "marker" in kinds.values() or "Recording" in tags or mishap


def _structure(tags: set[str], lemmas: set[str], clues: Clues) -> bool:
    """A boundary word on a part of the experiment ("start of the block") is Experiment-structure."""
    return bool((tags & STRUCTURE_ORGS or lemmas & STRUCTURE_NOUNS) and lemmas & BOUNDARY_WORDS
                and not clues.condition)


def read_facts(vocab: Vocabulary, tags: set[str], lemmas: set[str], clues: Clues) -> EventFacts:
    """The facts of one description, each by its convention, in order of dependence."""
    kinds = {t: kind_of(vocab, t) for t in tags}
    named = [t for t, k in kinds.items() if k == "action" and t not in clues.directed]
    items = [t for t, k in kinds.items() if k == "item"]
    stimulus_items = [t for t in items if under(vocab, t, STIMULUS_ITEMS)]
    presented_role = bool(tags & PRESENTED_ROLES)
    actions = _actions_done(named, tags, presented_role, clues)
    # A thing that acts ("a ball rolls") is seen happening: no agent of the task acts.
    agentive = [] if clues.thing_acts else _agentive(vocab, actions)
    # An accident ("presses the key by mistake") is a mishap, not the task's answer.
    mishap = "Mishap" in tags
    physical = _physical(actions, clues, mishap)
    outcome = _outcome(tags, physical, presented_role, stimulus_items, clues) and not clues.person_acts
    response = _response(tags, clues, agentive, physical=physical, presented_role=presented_role,
                         outcome=outcome, mishap=mishap)
    acting = (response or bool(agentive)) and not outcome and not _machinery(tags, kinds, physical)
    happening = any(a in HAPPENINGS for a in actions) or (clues.thing_acts and bool(actions))
    sensory = _sensory(tags, kinds, clues, stimulus_items, acting=acting,
                       attending=any(under(vocab, t, ATTENTION) for t in tags), presented_role=presented_role,
                       happening=happening, outcome=outcome)
    return EventFacts(
        vocab=vocab, tags=tags, lemmas=lemmas, clues=clues, kinds=kinds, items=items,
        stimulus_items=stimulus_items,
        modalities=_modalities(vocab, kinds),
        presented_role=presented_role, imagines=_imagines(named, clues), actions=actions, agentive=agentive,
        happening=happening, mishap=mishap, physical=physical, outcome=outcome, response=response,
        acting=acting and not clues.condition, sensory=sensory, control=_control(tags, kinds, mishap),
        structure=_structure(tags, lemmas, clues))
