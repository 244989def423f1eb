"""Event-level tags: what kind of event a description tells of, following HED conventions.

The conventions are those of the HED specification's annotation chapters and of hedtools'
``EventChecker``: exactly one event type per event; a task role on every task event
(Experimental-stimulus, Participant-response, Cue, ...); a modality on a sensory event; an
action in an agent's action. A statement about an outcome ("the answer was wrong") judges an
event rather than being one, so it gets neither an event type nor an inferred role.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
_NOT_STIMULUS = ("Anatomical-item", "IO-device", "Computing-device", "Recording-device",
                 "Measurement-device", "Questionnaire", "Display-device")
_SOUNDS = ("Sound", "Audio-clip")
_LANGUAGE = ("Language-item",)
# Items that by themselves make a description a stimulus presentation.
_STIMULUS_ITEMS = ("Sound", "Language-item", "Geometric-object", "Visualization", "Media-clip", "Face")
# Things an experiment shows on its display: seen, they are on the computer screen.
_SCREEN_ITEMS = ("Language-item", "Geometric-object", "Visualization", "Video-clip", "Movie", "Face")
# Actions through which a participant answers the task.
RESPONSE_ACTIONS = frozenset({"Press", "Release", "Touch", "Point", "Speak", "Write", "Report"})
# Actions that happen to things rather than being carried out on purpose by an agent.
_HAPPENINGS = frozenset({"Collide-with"})
# Subtrees of deliberate, bodily actions: evidence of an Agent-action event.
_AGENTIVE = ("Move", "Communicate", "Perform")
# Judgements of how an action turned out (hedtools' action roles, bar the non-judging ones).
OUTCOMES = conventions.ACTION_ROLES - {"Done-indication", "Ready-indication", "Imagined-action"}
# Roles of things shown to the participant: the response or action they mention is their content.
_PRESENTED_ROLES = frozenset({"Feedback", "Instructional", "Cue", "Warning"})
# hedtools' task roles: one of them is what a task event is for.
TASK_ROLES = conventions.TASK_ROLES
# hedtools' stimulus roles: they describe a presented stimulus, so only a sensory event has them.
STIMULUS_ROLES = conventions.STIMULUS_ROLES
# Attending to a modality names it without presenting anything.
_ATTENTION = ("Task-attentional-demand", "Attend-to", "Switch-attention", "Condition-variable")
_STRUCTURE_ORGS = frozenset({"Experimental-trial", "Time-block", "Task", "Condition-variable",
                             "Experimental-intertrial"})
# Parts of an experiment's timeline that have no tag of their own; words that mark where something lasting
# starts or ends.
STRUCTURE_NOUNS = conventions.TIMELINE_NOUNS
BOUNDARY_WORDS = conventions.BOUNDARY


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


def _modality(vocab: Vocabulary, tag: str) -> str | None:
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


def _roots(sensory: bool, acting: bool, structure: bool, control: bool) -> tuple[str, ...]:
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


def infer_event(vocab: Vocabulary, tags: set[str], lemmas: set[str], clues: Clues | None = None) -> EventFrame:
    clues = clues or Clues()
    kinds = {t: kind_of(vocab, t) for t in tags}
    actions = [t for t, k in kinds.items() if k == "action" and t not in clues.directed]
    items = [t for t, k in kinds.items() if k == "item"]
    stimulus_items = [t for t in items if _under(vocab, t, _STIMULUS_ITEMS)]
    presented_role = bool(tags & _PRESENTED_ROLES)
    added: list[str] = []
    if clues.imagined and [a for a in actions if a != "Imagine"]:
        added.append("Imagined-action")  # an imagined movement is a task action that is never carried out
    if presented_role or "Instructional" in tags or clues.signalled:
        actions = []  # what a cue or an instruction asks for has not happened yet
    agentive = [a for a in actions if a not in _HAPPENINGS and _under(vocab, a, _AGENTIVE)]
    participant = "Experiment-participant" in tags
    # An accident ("presses the key by mistake") is a mishap, not the task's answer.
    mishap = "Mishap" in tags
    physical = any(a in RESPONSE_ACTIONS for a in actions) and not clues.imagined and not mishap
    outcome = bool(tags & OUTCOMES) and not physical and not presented_role and not stimulus_items
    # A participant named as doing something deliberate in a task is responding; a vehicle that
    # moves or an imagined movement is not a response.
    response = physical or (not presented_role and not outcome and not clues.imagined and not mishap and (
        "Participant-response" in tags or (participant and bool(tags & OUTCOMES or agentive or clues.made))))
    # "The recording stops", "the amplifier fails": with nobody named, the experiment's machinery acts.
    machinery = bool({"Recording", "Mishap"} & tags or "marker" in kinds.values()) and not (
        participant or physical or "Participant-response" in tags or "agent" in kinds.values())
    acting = (response or bool(agentive)) and not outcome and not machinery
    attending = any(_under(vocab, t, _ATTENTION) for t in tags)
    sensory = "Sensory-event" in tags or (not attending and "modality" in kinds.values())
    happening = any(a in _HAPPENINGS for a in actions)
    # A cue or feedback is shown or played even when what it asks for is attention.
    if not sensory and not acting and (presented_role or (not attending and (stimulus_items or happening))):
        sensory = True
    # "The face is not shown": what is withheld presents nothing. A condition ("the condition in
    # which subjects attend to tones") is a state the experiment's events happen in, not an event.
    sensory = sensory and not outcome and not clues.withheld and not clues.condition
    acting = acting and not clues.condition
    # A mishap is an event's role, not a judgement of an action: an equipment or control abnormality
    # that nobody presented or did is an event of the experiment's control.
    control = "marker" in kinds.values() or "Recording" in tags or mishap
    structure = bool((tags & _STRUCTURE_ORGS or lemmas & STRUCTURE_NOUNS) and lemmas & BOUNDARY_WORDS
                     and not clues.condition)
    roots = _roots(sensory, acting, structure, control)

    top: list[str] = []
    action_top: list[str] = []
    dropped: set[str] = set()
    screen = False
    if sensory:
        top.append("Sensory-event")
        # A view or a channel ("on a black background", "binaurally") implies its modality.
        modalities = {_modality(vocab, t) for t, k in kinds.items() if k == "modality"} - {None}
        top.extend(sorted(m for m in modalities if m not in tags))
        if not modalities:
            sounds = [t for t in items if _under(vocab, t, _SOUNDS)]
            # Words that are spoken or played are heard, not read.
            seen = [t for t in stimulus_items if t not in sounds and not (sounds and _under(vocab, t, _LANGUAGE))]
            if sounds:
                top.append("Auditory-presentation")
            # A dog in "a dog barking" is the sound's source; a picture of a dog is seen.
            # A cue or feedback whose modality goes unsaid is most often shown.
            if seen or (not sounds and (presented_role or any(not _under(vocab, t, _NOT_STIMULUS) for t in items))):
                top.append("Visual-presentation")
        visual = "Visual-presentation" in top or "Visual-presentation" in modalities
        shown = "Computer-screen" in tags or any(_under(vocab, t, _SCREEN_ITEMS) for t in items)
        screen = visual and shown and not any(
            _under(vocab, t, ("Display-device",)) and t != "Computer-screen" for t in items)
        if clues.marks and not acting and not tags & (TASK_ROLES - {"Experimental-stimulus", "Cue"}):
            # Shown or played to mark something, it is a signal: a cue with the effect it is meant to have.
            added.extend(["Intended-effect", "Cue"])
            dropped.add("Experimental-stimulus")
        elif clues.signalled & RESPONSE_ACTIONS and not presented_role:
            added.append("Go-signal")  # a stimulus telling which response to make signals the go
        elif clues.directive and "Cue" in tags:
            added.append("Instructional")
        # A happening in the scene ("two cars collide") is seen, but the experiment presents nothing.
        if not (tags | set(added)) & TASK_ROLES and (stimulus_items or not happening):
            top.append("Experimental-stimulus")
    elif clues.directive and "Cue" in tags:
        added.append("Instructional")  # "a cue telling the participant to attend to sounds"
    if acting:
        into = action_top if sensory else top
        into.append("Agent-action")
        if response and clues.undecided and not tags & OUTCOMES:
            # Both keys at once cannot be told apart as one answer: HED's Indeterminate-action, the
            # action role hedtools' EventChecker accepts in place of a task role, not an answer.
            into.append("Indeterminate-action")
        elif response:
            into.append("Participant-response")
        if "agent" not in kinds.values() and not response:
            into.append("Experiment-participant")  # the agent an action needs
    if not sensory and not acting and roots:
        top.append(roots[0])
    if clues.condition:
        # HED's task roles are Task-event-roles: a condition is no event, so it has none ("a condition
        # in which attention shifts as instructed" is not an instruction).
        added = []
        dropped |= {t for t in tags if vocab.is_under(t, "Task-event-role")}
    top.extend(t for t in added if t not in tags)
    if presented_role:
        # One task role per event: a cue, feedback or an instruction is what this event is for; the
        # stimulus or the response it speaks of ("feedback on the last response") belongs to other events.
        dropped |= tags & {"Experimental-stimulus", "Participant-response"}
    if not sensory:
        # A stimulus role word in a response or a judgement ("a false alarm to the target") names
        # what was answered, not this event's role.
        dropped |= tags & STIMULUS_ROLES if (acting or outcome or "Participant-response" in tags) else set()
    # Exactly one event type per event: an event word the inference did not choose goes.
    dropped |= {t for t, k in kinds.items() if k == "event"} - set(top) - set(action_top)
    if "Experiment-structure" not in top:
        dropped.add("Task")  # "the task", "during the task": the topic, not a boundary of the task
    if "Imagined-action" in top:
        dropped.add("Imagine")  # Imagined-action says it, with the action itself kept
    return EventFrame(tuple(top), sensory, acting, screen, tuple(action_top), frozenset(dropped),
                      acting and response)


# hedtools' event types; the bare Event says nothing a description could.
EVENT_TYPES = conventions.EVENT_TYPES - {"Event"}


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
    if term_tags <= {"Experimental-stimulus", "Participant-response"} and present & _PRESENTED_ROLES:
        return True  # "feedback on the last response": one task role per event
    if term_tags <= TASK_ROLES and "Condition-variable" in present and not present & EVENT_TYPES:
        return True  # a condition is no event, so it has no event role
    judged = bool(present & (OUTCOMES | {"Participant-response"})) and "Sensory-event" not in present
    return term_tags <= STIMULUS_ROLES and judged
