"""What a tag is to an event, by where the schema puts it, and what the wording says beyond the tags.

The lists here are the HED conventions the event rules (``event_facts``, ``event_rules``) read:
hedtools' task, stimulus and action roles, the schema subtrees that present something, that act,
or that are the experiment's apparatus. Kept apart from the rules so both can share them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents import conventions

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
NOT_STIMULUS = ("Anatomical-item", "IO-device", "Computing-device", "Recording-device",
                "Measurement-device", "Questionnaire", "Display-device")
SOUNDS = ("Sound", "Audio-clip")
LANGUAGE = ("Language-item",)
# Items that by themselves make a description a stimulus presentation.
STIMULUS_ITEMS = ("Sound", "Language-item", "Geometric-object", "Visualization", "Media-clip", "Face")
# Things an experiment shows on its display: seen, they are on the computer screen.
SCREEN_ITEMS = ("Language-item", "Geometric-object", "Visualization", "Video-clip", "Movie", "Face")
# Actions through which a participant answers the task.
RESPONSE_ACTIONS = frozenset({"Press", "Release", "Touch", "Point", "Speak", "Write", "Report"})
# Actions that happen to things rather than being carried out on purpose by an agent.
HAPPENINGS = frozenset({"Collide-with"})
# Subtrees of deliberate, bodily actions: evidence of an Agent-action event.
AGENTIVE = ("Move", "Communicate", "Perform")
# Judgements of how an action turned out (hedtools' action roles, bar the non-judging ones).
OUTCOMES = conventions.ACTION_ROLES - {"Done-indication", "Ready-indication", "Imagined-action"}
# Roles of things shown to the participant: the response or action they mention is their content.
PRESENTED_ROLES = frozenset({"Feedback", "Instructional", "Cue", "Warning"})
# hedtools' task roles: one of them is what a task event is for.
TASK_ROLES = conventions.TASK_ROLES
# hedtools' stimulus roles: they describe a presented stimulus, so only a sensory event has them.
STIMULUS_ROLES = conventions.STIMULUS_ROLES
# Attending to a modality names it without presenting anything.
ATTENTION = ("Task-attentional-demand", "Attend-to", "Switch-attention", "Condition-variable")
STRUCTURE_ORGS = frozenset({"Experimental-trial", "Time-block", "Task", "Condition-variable",
                            "Experimental-intertrial"})
# Parts of an experiment's timeline that have no tag of their own; words that mark where something lasting
# starts or ends.
STRUCTURE_NOUNS = conventions.TIMELINE_NOUNS
BOUNDARY_WORDS = conventions.BOUNDARY
# hedtools' event types; the bare Event says nothing a description could.
EVENT_TYPES = conventions.EVENT_TYPES - {"Event"}


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


def under(vocab: Vocabulary, tag: str, ancestors: tuple[str, ...]) -> bool:
    """True if *tag* sits below (or is) any of *ancestors* in the schema."""
    return any(vocab.is_under(tag, a) for a in ancestors)


def modality(vocab: Vocabulary, tag: str) -> str | None:
    """The sense a presentation tag belongs to: Visual-presentation for Background-view, itself for a sense."""
    info = vocab.get(tag)
    if info is None:
        return None
    path = (*info.lineage(), info.name)
    if "Sensory-presentation" not in path or path[-1] == "Sensory-presentation":
        return None
    return path[path.index("Sensory-presentation") + 1]


@dataclass(frozen=True)
class Clues:
    """What the wording says beyond the tags: an action asked for rather than done, an imagined one."""

    directed: frozenset[str] = frozenset()  # actions the participant is told to do ("which key to press")
    directive: bool = False  # the description tells the participant what to do ("should", "to attend")
    signalled: frozenset[str] = frozenset()  # actions a presented thing asks for ("which key to press")
    imagined: bool = False  # "imagine", "imagined": the action happens in the mind only
    withheld: bool = False  # a presentation word is negated ("the probe was not shown"): nothing is presented
    condition: bool = False  # the description defines a condition ("a condition in which ..."), not an event
    marks: bool = False  # a purpose clause ("shown to mark the start of the block"): the event is a signal
    undecided: bool = False  # a response made with both response devices ("presses both keys")
    made: bool = False  # an action noun after a light verb ("gives a detection"): the subject does it
    # A stimulus is the subject of a clause that presents it ("a tone follows the cue, but the
    # participant responds"): the event presents it, whatever is done besides.
    presented: bool = False
    # A thing, not a person, is the subject of the clause's act ("a ball rolls across the screen"): the act
    # is the thing's, seen happening, and the participant does nothing.
    thing_acts: bool = False
    # A person is the subject of a clause whose verb is an action role ("the driver corrects the lane"): the
    # person does the act; the role word is no judgement of another event.
    person_acts: bool = False
