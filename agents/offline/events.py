"""Event-level tags: what kind of event a description tells of, following HED conventions.

Every event gets its type (Sensory-event, Agent-action, Experiment-control, ...) when the
description makes it evident; a sensory event gets its modality and, when something is
presented, its task role; a participant's action names the participant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

# Kinds, by the subtree a tag lives in; the first listed ancestor that matches wins.
_KIND_BY_ANCESTOR: tuple[tuple[str, str], ...] = (
    ("Sensory-presentation", "modality"),
    ("Task-property", "role"),
    ("Agent-task-role", "agent"),
    ("Agent-state", "state"),
    ("Agent-trait", "state"),
    ("Organizational-property", "org"),
    ("Data-marker", "marker"),
    ("Data-artifact", "role"),
    ("Environmental-property", "context"),
    ("Informational-property", "info"),
    ("Relation", "relation"),
    ("Agent", "agent"),
    ("Event", "event"),
    ("Action", "action"),
    ("Item", "item"),
    ("Property", "attribute"),
)
# Item subtrees that are the apparatus or the participant's body, not something presented.
_NOT_STIMULUS = ("Anatomical-item", "IO-device", "Computing-device", "Recording-device",
                 "Measurement-device", "Questionnaire", "Display-device")
_SOUNDS = ("Sound", "Audio-clip")
# Items that by themselves make a description a stimulus presentation.
_STIMULUS_ITEMS = ("Sound", "Language-item", "Geometric-object", "Visualization", "Media-clip", "Face")
# Actions through which a participant answers the task.
RESPONSE_ACTIONS = frozenset({"Press", "Release", "Touch", "Point", "Speak", "Write", "Report"})
# Actions that happen to things rather than being carried out on purpose by an agent.
_HAPPENINGS = frozenset({"Collide-with"})
# Subtrees of deliberate, bodily actions: evidence of an Agent-action event.
_AGENTIVE = ("Move", "Communicate", "Perform")
# Judgements of a response: evidence that a participant responded.
_RESPONSE_OUTCOMES = frozenset({"Correct-action", "Incorrect-action", "Omitted-action", "Indeterminate-action",
                                "Miss", "Inappropriate-action", "Appropriate-action"})
# Roles of things shown to the participant: the response or action they mention is their content.
_PRESENTED_ROLES = frozenset({"Feedback", "Instructional", "Cue", "Warning"})
_EVENT_ROLES = frozenset({"Cue", "Feedback", "Instructional", "Warning", "Mishap", "Incidental",
                          "Participant-response", "Task-activity"})
# Attending to a modality names it without presenting anything.
_ATTENTION = ("Task-attentional-demand", "Attend-to", "Switch-attention", "Condition-variable")
_STRUCTURE_ORGS = frozenset({"Experimental-trial", "Time-block", "Task", "Condition-variable",
                             "Experimental-intertrial"})
# Parts of an experiment's timeline that have no tag of their own.
STRUCTURE_NOUNS = frozenset({"experiment", "session", "phase", "run", "practice"})
BOUNDARY_WORDS = frozenset({"start", "starts", "started", "starting", "begin", "begins", "beginning",
                            "began", "end", "ends", "ended", "ending", "stop", "stops", "stopped",
                            "finish", "finishes", "finished", "onset", "offset", "resume", "resumes",
                            "resumed", "restart", "change", "changes", "new"})


# Always understood: every event of an experiment involves its participant.
IMPLICIT_TAGS = frozenset({"Experiment-participant"})


def kind_of(vocab: Vocabulary, tag: str) -> str:
    """The grammatical role a tag plays, from where it sits in the schema."""
    info = vocab.get(tag)
    if info is None:
        return "attribute"
    path = (*info.lineage(), info.name)
    for ancestor, kind in _KIND_BY_ANCESTOR:
        if ancestor in path:
            return kind
    return "attribute"


def _under(vocab: Vocabulary, tag: str, ancestors: tuple[str, ...]) -> bool:
    return any(vocab.is_under(tag, a) for a in ancestors)


@dataclass(frozen=True)
class EventFrame:
    tags: tuple[str, ...]  # event-level tags to put first
    sensory: bool
    acting: bool

    def keeps(self, tag: str) -> bool:
        """Whether a loose (ungrouped) tag still belongs once the event type is known."""
        if tag == "Experimental-stimulus":
            return self.sensory  # "the stimulus should be ignored" presents nothing
        if tag == "Experiment-participant":
            return self.acting  # "the participant should attend to sounds": nobody acts yet
        return True


def infer_event(vocab: Vocabulary, tags: set[str], lemmas: set[str]) -> EventFrame:
    top: list[str] = []
    kinds = {t: kind_of(vocab, t) for t in tags}
    actions = [t for t, k in kinds.items() if k == "action"]
    items = [t for t, k in kinds.items() if k == "item"]
    stimulus_items = [t for t in items if _under(vocab, t, _STIMULUS_ITEMS)]
    agentive = [a for a in actions if a not in _HAPPENINGS and _under(vocab, a, _AGENTIVE)]
    presented_role = bool(tags & _PRESENTED_ROLES)
    if "Instructional" in tags:
        actions, agentive = [], []  # what the participant is told to do has not happened yet
    participant = "Experiment-participant" in tags
    response = any(a in RESPONSE_ACTIONS for a in actions) or (not presented_role and (
        "Participant-response" in tags or (participant and bool(tags & _RESPONSE_OUTCOMES))))
    if response:
        top += ["Agent-action", "Participant-response"]
    elif agentive:
        top.append("Agent-action")
    acting = response or bool(agentive)
    if acting and "agent" not in kinds.values():
        top.append("Experiment-participant")
    if "marker" in kinds.values() or "Recording" in tags:
        top.append("Experiment-control")
    if (tags & _STRUCTURE_ORGS or lemmas & STRUCTURE_NOUNS) and lemmas & BOUNDARY_WORDS:
        top.append("Experiment-structure")

    attending = any(_under(vocab, t, _ATTENTION) for t in tags)
    sensory = "Sensory-event" in tags or (not attending and "modality" in kinds.values())
    happening = any(a in _HAPPENINGS for a in actions)
    if not sensory and not acting and not attending and (stimulus_items or happening or presented_role):
        sensory = True
    if sensory:
        top.append("Sensory-event")
        if not any(k == "modality" and t != "Sensory-presentation" for t, k in kinds.items()):
            sounds = [t for t in items if _under(vocab, t, _SOUNDS)]
            seen = [t for t in stimulus_items if t not in sounds]
            if sounds:
                top.append("Auditory-presentation")
            # A dog in "a dog barking" is the sound's source; a picture of a dog is seen.
            if seen or (not sounds and any(not _under(vocab, t, _NOT_STIMULUS) for t in items)):
                top.append("Visual-presentation")
        if stimulus_items and not tags & _EVENT_ROLES:
            top.append("Experimental-stimulus")
    return EventFrame(tuple(top), sensory, acting)
