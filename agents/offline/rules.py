"""How matched concepts become HED: each tag's role comes from its place in the schema tree.

The annotator builds an ordered list of *units* (one per matched phrase or quantity), binds
attributes to the items they describe, relations to their reference objects, actions to their
agents and objects, and then adds the event-level tags HED conventions call for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

Element = "str | Group"

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

# Item subtrees that are the apparatus or the participant, not something presented.
_NOT_STIMULUS = ("Anatomical-item", "IO-device", "Computing-device", "Recording-device",
                 "Measurement-device", "Questionnaire")
_SOUNDS = ("Sound", "Audio-clip")
# Items that by themselves make a description a stimulus presentation.
_STIMULUS_ITEMS = ("Sound", "Language-item", "Geometric-object", "Visualization", "Media-clip", "Face")
# Screen-position relations: their reference defaults to the screen.
SCREEN_RELATIONS = frozenset({
    "Left-side-of", "Right-side-of", "Center-of", "Upper-left-of", "Upper-right-of", "Lower-left-of",
    "Lower-right-of", "Upper-center-of", "Lower-center-of", "Top-edge-of", "Bottom-edge-of",
    "Left-edge-of", "Right-edge-of",
})
_TO_SIDE = {"To-left-of": "Left-side-of", "To-right-of": "Right-side-of"}
# Actions through which a participant answers the task.
RESPONSE_ACTIONS = frozenset({"Press", "Release", "Touch", "Point", "Speak", "Write"})
# Actions that happen to something rather than being done deliberately by an agent.
HAPPENINGS = frozenset({"Collide-with"})
# Gap words that keep an attribute or item in the same noun phrase.
_NP_GLUE = frozenset({"of", "and", "with", "is", "are", "was", "were", "be", "in", "colored", "color"})
_OBJ_GLUE = frozenset({"on", "at", "with", "to", "into", "onto", "the", "a", "an", "its", "using", "of",
                       "for", "from", "by", "into", "upon", "both", "either", "one", "two"})
BOUNDARY_WORDS = frozenset({"start", "starts", "started", "starting", "begin", "begins", "beginning",
                            "began", "end", "ends", "ended", "ending", "stop", "stops", "stopped",
                            "finish", "finishes", "finished", "onset", "offset", "resume", "resumes",
                            "resumed", "restart", "change", "changes", "switch", "new", "next"})


@dataclass
class Group:
    items: list[str | Group] = field(default_factory=list)

    def tags(self) -> list[str]:
        out: list[str] = []
        for x in self.items:
            out.extend(x.tags() if isinstance(x, Group) else [x])
        return out


@dataclass
class Unit:
    tags: list[str]
    kind: str
    first: int
    last: int
    term: str
    used: bool = False
    extras: list[str | Group] = field(default_factory=list)  # bound attributes, relations, values


def kind_of(vocab: Vocabulary, tag: str) -> str:
    info = vocab.get(tag)
    if info is None:
        return "attribute"
    path = (*info.lineage(), info.name)
    for ancestor, kind in _KIND_BY_ANCESTOR:
        if ancestor in path:
            return kind
    return "attribute"


def under(vocab: Vocabulary, tag: str, ancestors: tuple[str, ...]) -> bool:
    return any(vocab.is_under(tag, a) for a in ancestors)


def is_stimulus_item(vocab: Vocabulary, tag: str) -> bool:
    return kind_of(vocab, tag) == "item" and not under(vocab, tag, _NOT_STIMULUS) \
        and tag != "Computer-screen"


def gap_words(words: list[str], a: int, b: int) -> list[str]:
    """Words strictly between token indices *a* and *b*."""
    return words[a + 1 : b]


def bind_noun_phrases(units: list[Unit], words: list[str], vocab: Vocabulary) -> list[Unit]:
    """Merge attributes into the item they describe; return the item (or lone attribute) units."""
    phrases: list[Unit] = []
    pending: list[Unit] = []  # attributes waiting for their noun
    last_np: Unit | None = None
    for u in units:
        if u.kind not in {"item", "attribute"}:
            if pending:
                phrases.extend(pending)
                pending = []
            last_np = None
            continue
        glue_ok = last_np is not None and set(gap_words(words, last_np.last, u.first)) <= _NP_GLUE
        if u.kind == "attribute":
            if last_np is not None and last_np.kind == "item" and glue_ok and not pending:
                last_np.extras.extend(u.tags)  # "a circle that is red", "square in light blue"
                last_np.last = u.last
                continue
            pending.append(u)
            continue
        if pending and set(gap_words(words, pending[-1].last, u.first)) <= _NP_GLUE:
            u.extras[:0] = [t for p in pending for t in p.tags]
            u.first = pending[0].first
            pending = []
        elif pending:
            phrases.extend(pending)
            pending = []
        if last_np is not None and last_np.kind == "item" and glue_ok and \
                not set(gap_words(words, last_np.last, u.first)) & {"and"}:
            last_np.extras.append(Group([*u.tags, *u.extras]) if u.extras else u.tags[0])
            last_np.extras.extend(u.tags[1:] if not u.extras else [])
            last_np.last = u.last
            continue
        phrases.append(u)
        last_np = u
    phrases.extend(pending)
    return phrases


def np_group(u: Unit) -> str | Group:
    content: list[str | Group] = [*u.tags, *u.extras]
    return content[0] if len(content) == 1 and isinstance(content[0], str) else Group(content)


def flatten_single(x: str | Group) -> str | Group:
    while isinstance(x, Group) and len(x.items) == 1:
        x = x.items[0]
    return x
