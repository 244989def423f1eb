"""How matched concepts become grouped HED: roles come from each tag's place in the schema tree.

The annotator hands over an ordered list of *units* (one per matched phrase or quantity).
Here attributes are bound to the items they describe, relations to their reference objects,
actions to their agents and objects, and the event-level tags HED conventions call for are added.
The units themselves live in ``units``; what the phrasing says beyond the tags is read in ``wording``.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from agents.offline.events import EventFrame, infer_event, kind_of
from agents.offline.units import Group, Unit
from agents.offline.wording import OF_GLUE, Wording

if TYPE_CHECKING:
    from agents.vocabulary import Vocabulary

__all__ = ["ADJECTIVAL_RELATION_WORDS", "FIXATION_WORDS", "SCREEN_RELATIONS", "Composer", "Group", "Unit"]

# Screen-position relations: their reference defaults to the screen.
SCREEN_RELATIONS = frozenset({
    "Left-side-of", "Right-side-of", "Center-of", "Upper-left-of", "Upper-right-of", "Lower-left-of",
    "Lower-right-of", "Upper-center-of", "Lower-center-of", "Top-edge-of", "Bottom-edge-of",
    "Left-edge-of", "Right-edge-of",
})
FIXATION_WORDS = frozenset({"fixation", "fixations"})
ADJECTIVAL_RELATION_WORDS = frozenset({"central", "centrally", "centered", "center", "middle", "top", "bottom",
                                       "left", "right", "corner", "upper", "lower", "nearby", "adjacent",
                                       "ahead", "opposite", "distant", "inside", "outside", "behind", "front"})
_TO_SIDE = {"To-left-of": "Left-side-of", "To-right-of": "Right-side-of"}
# Gap words that keep an attribute or item in the same noun phrase.
_NP_GLUE = frozenset({"of", "and", "with", "is", "are", "was", "were", "be", "in", "a", "an", "the",
                      "turns", "turned", "becomes", "became"})
# An arrow's side is where it points: "a left arrow" points leftward.
_POINTING = {"Left": "Leftward", "Right": "Rightward"}
_DIRECTIONAL_ITEMS = frozenset({"Arrow"})
_VIEWS = frozenset({"Background-view", "Foreground-view"})
# Who acted and how it is judged: these go with the action when a sentence also presents something.
_ACTOR_TAGS = frozenset({"Experiment-participant", "Participant-response"})
_OBJ_GLUE = frozenset({"on", "at", "with", "to", "into", "onto", "the", "a", "an", "its", "their", "using",
                       "of", "for", "from", "by", "upon", "both", "either", "one", "two", "his", "her",
                       "up", "down", "out", "in", "is", "are", "was", "were"})


class Composer(Wording):
    """Turns the units of one description into top-level HED elements."""

    def __init__(self, vocab: Vocabulary, words: list[str], breaks: list[int], matched: set[int], *,
                 withheld: bool = False, condition: bool = False, marks: bool = False,
                 silent: frozenset[int] = frozenset()) -> None:
        super().__init__(vocab, words, breaks, matched, withheld=withheld, condition=condition, marks=marks,
                         silent=silent)
        self.modifiers: set[int] = set()  # tokens of attributes: "the *left* button"

    def _bridgeable(self, a: int, b: int, glue: frozenset[str]) -> bool:
        """True if only glue words and at most two unknown modifiers separate tokens *a* and *b*."""
        if b <= a + 1:
            return True
        if not self._same_clause(a, b):
            return False
        stray = [i for i in range(a + 1, b)
                 if self.words[i] not in glue and i not in self.modifiers and i not in self.silent]
        return len(stray) <= 2 and not any(i in self.matched for i in stray)

    # --- noun phrases ---------------------------------------------------------------------
    def _modifier_gap(self, a: int, b: int, modifiers: set[int], glue: frozenset[str]) -> bool:
        """True if only glue words or other modifiers separate tokens *a* and *b* in one clause."""
        return self._same_clause(a, b) and all(
            self.words[i] in glue or i in modifiers or i in self.silent for i in range(a + 1, b))

    def bind_noun_phrases(self, units: list[Unit]) -> None:
        """Fold attributes into the item they describe: (DarkBlue, Square), (Tone, Frequency/5 Hz)."""
        # A background or a foreground has a colour of its own, like a thing: (Background-view, Black).
        items = [u for u in units if u.kind == "item" or u.tag in _VIEWS]
        modifiers = {i for u in units if u.kind in {"attribute", "state"} for i in range(u.first, u.last + 1)}
        self.modifiers = modifiers
        for u in units:
            if u.kind not in {"attribute", "state"} or u.used:
                continue
            after = next((i for i in items if i.first > u.last
                          and self._modifier_gap(u.last, i.first, modifiers, _NP_GLUE)), None)
            before = None
            if u.kind == "attribute":
                before = next((i for i in reversed(items) if i.last < u.first
                               and self._modifier_gap(i.last, u.first, modifiers, _NP_GLUE | {"that", "which"})),
                              None)
            head = after or before
            if head is not None:
                if head.tag in _DIRECTIONAL_ITEMS:
                    u.tag = _POINTING.get(u.tag, u.tag)
                head.extras.append(u.tag)
                u.used = True
        # "an image of a face": one thing described by both items; "a face image": the last noun heads.
        for a, b in itertools.pairwise(items):
            if a.used or b.used or not self._modifier_gap(a.last, b.first, modifiers, OF_GLUE):
                continue
            if self._merge_kinds(a, b):
                continue
            if "of" in self._gap(a.last, b.first):
                a.extras.append(b.content())
                b.used = True
            elif a.first != b.first:
                b.extras[:0] = [a.tag, *a.extras]
                a.used = True

    def _merge_kinds(self, a: Unit, b: Unit) -> bool:
        """"a beep sound", "a sound, a beep": one thing named twice, by its kind and by itself.

        HED names a thing by its most specific tag; the broader one says nothing more, so the
        specific unit stands for both (with what describes either).
        """
        if self.vocab.is_under(a.tag, b.tag):
            keep, drop = a, b
        elif self.vocab.is_under(b.tag, a.tag):
            keep, drop = b, a
        else:
            return False
        keep.extras.extend(drop.extras)
        keep.first, keep.last = min(a.first, b.first), max(a.last, b.last)
        drop.used = True
        return True

    # --- relations and actions ------------------------------------------------------------
    def _next_np(self, units: list[Unit], start: Unit, glue: frozenset[str]) -> Unit | None:
        """The first unused item after *start* (in unit order) that *start* can reach."""
        for u in units[units.index(start) + 1 :]:
            if u.used:
                continue
            if u.kind == "item" and self._bridgeable(start.last, u.first, glue):
                return u
            if u.kind != "attribute":
                return None
        return None

    def _names_fixation(self, after: int) -> bool:
        for word in self.words[after + 1 : after + 4]:
            if word not in _OBJ_GLUE:
                return word in FIXATION_WORDS
        return False

    def bind_relations(self, units: list[Unit]) -> list[str | Group]:
        loose: list[str | Group] = []
        for r in (u for u in units if u.kind == "relation" and not u.used):
            r.used = True
            obj: str | Group | None = None
            tag = r.tag
            # "central cross", "on the left": an adjective or adverb has no object of its own.
            adjectival = r.term.split()[-1] in ADJECTIVAL_RELATION_WORDS
            if self._names_fixation(r.last):
                # "left of fixation": the fixation point stands for the screen centre.
                tag, obj = _TO_SIDE.get(tag, tag), "Computer-screen"
            elif not adjectival:
                target = self._next_np(units, r, _OBJ_GLUE)
                if target is not None:
                    target.used = True
                    obj = target.content()
            following = self._next_np(units, r, OF_GLUE) if adjectival else None
            subject = following or next((u for u in reversed(units[: units.index(r)]) if u.kind == "item"
                                         and not u.used and self._same_clause(u.last, r.first)), None)
            if obj is None and (tag in SCREEN_RELATIONS or tag in _TO_SIDE):
                # A side of the body ("the left index finger") is left of the body, not of the screen.
                bodily = subject is not None and self.vocab.is_under(subject.tag, "Body-part")
                tag, obj = _TO_SIDE.get(tag, tag), "Body" if bodily else "Computer-screen"
            r.tag = tag
            rel = Group([tag, obj]) if obj is not None else tag
            if subject is not None:
                subject.extras.append(rel)
            else:
                loose.append(rel)
        return loose

    def bind_actions(self, units: list[Unit]) -> list[str | Group]:
        groups: list[str | Group] = []
        for v in (u for u in units if u.kind == "action" and not u.used):
            v.used = True
            obj = self._next_np(units, v, _OBJ_GLUE)
            inner: list[str | Group] = [v.tag, *v.extras]
            if obj is not None:
                obj.used = True
                inner.append(obj.content())
            # The body part an action is done with belongs to the action: (Press, Key, Index-finger).
            # Only up to the next action: "raised the left hand, the computer predicted the right hand".
            after = units[units.index(v) + 1 :]
            until = next((n for n, u in enumerate(after) if u.kind == "action"), len(after))
            limb = next((u for u in after[:until] if u.kind == "item" and not u.used
                         and self._same_clause(v.last, u.first)
                         and self.vocab.is_under(u.tag, "Anatomical-item")), None)
            if limb is not None:
                limb.used = True
                inner.append(limb.content())
            subject = next((u for u in reversed(units[: units.index(v)]) if u.kind in {"agent", "item"}
                            and not u.used and self._same_clause(u.last, v.first)), None)
            action: str | Group = Group(inner) if len(inner) > 1 else v.tag
            if subject is not None:
                subject.used = True
                acted: str | Group = Group([subject.content(), action])
                # "The car moves into the lane": a vehicle's motion is its driver's act, who operates it.
                driven = self.vocab.is_under(subject.tag, "Vehicle") and self.vocab.is_under(v.tag, "Move")
                groups.append(Group(["Operate", acted]) if driven else acted)
            else:
                groups.append(action)
        return groups

    # --- the whole description --------------------------------------------------------------
    def compose(self, units: list[Unit], lemmas: set[str], durations: list[Unit]) -> list[str | Group]:
        """The description's top-level elements: clues read, units bound, event-level tags by convention."""
        clues = self.clues(units)
        self.bind_noun_phrases(units)
        relation_groups = self.bind_relations(units)
        action_groups = self.bind_actions(units)
        tags = {u.tag for u in units if u.kind != "reference" and not (u.tag == "Imagine" and u.used)}
        event = infer_event(self.vocab, tags, lemmas, clues)
        event_tags: list[str | Group] = list(event.tags)
        rest = [u.content() for u in units if not u.used and event.keeps(u.tag)]
        action_groups = _acts_of_this_event(action_groups, event)
        if event.screen:
            rest, event_tags = _on_screen(rest, event_tags)
        if self.marks:
            rest, event_tags = _signal_purpose(rest, event_tags)
        self._head_durations(durations, rest, action_groups, relation_groups)
        if event.action_tags:
            return self._two_events(event, event_tags, relation_groups, action_groups, rest)
        return [*event_tags, *event.action_tags, *action_groups, *relation_groups, *rest]

    def _head_durations(self, durations: list[Unit], rest: list[str | Group], action_groups: list[str | Group],
                        relation_groups: list[str | Group]) -> None:
        """Duration heads a top-level group together with what lasts that long (changed in place)."""
        bodies = [e for e in [*rest, *action_groups, *relation_groups]
                  if isinstance(e, Group) or kind_of(self.vocab, e) in {"item", "action"}]
        for d in durations:
            if bodies:
                body = bodies.pop(0)
                for seq in (rest, action_groups, relation_groups):
                    if body in seq:
                        wrapped = body if isinstance(body, Group) else Group([body], keep=True)
                        seq[seq.index(body)] = Group([d.tag, wrapped])
                        break

    def _two_events(self, event: EventFrame, event_tags: list[str | Group], relation_groups: list[str | Group],
                    action_groups: list[str | Group], rest: list[str | Group]) -> list[str | Group]:
        """A presentation and an action in one sentence are two events: one group each.

        Who acted and how the action is judged go with the action; the rest with what is shown.
        """
        outcome = [e for e in rest if isinstance(e, str) and (e in _ACTOR_TAGS or (
            kind_of(self.vocab, e) == "role" and self.vocab.is_under(e, "Task-action-type")))]
        shown = [e for e in rest if e not in outcome]
        return [_lasting(Group([*event_tags, *relation_groups, *shown])),
                _lasting(Group([*event.action_tags, *action_groups, *outcome]))]


def _lasting(event: Group) -> Group:
    """An event whose content lasts a while, headed by its Duration: HED allows Duration only in a top-level
    group, so "(Duration/2 s, (Circle))" inside the event becomes "(Duration/2 s, (the event, Circle))"."""
    timed = [e for e in event.items if isinstance(e, Group) and e.items and isinstance(e.items[0], str)
             and e.items[0].startswith("Duration/")]
    if not timed:
        return event
    first = timed[0]
    head, bodies = first.items[0], first.items[1:]
    # "(Duration/2 s, (Circle))": the single tag was wrapped only to sit beside the Duration.
    bodies = [b.items[0] if isinstance(b, Group) and b.keep and len(b.items) == 1 else b for b in bodies]
    return Group([head, Group([*(e for e in event.items if e is not first), *bodies])])


def _acts_of_this_event(action_groups: list[str | Group], event: EventFrame) -> list[str | Group]:
    """Actions whose tag the conventions keep, the participant named as agent only where no role says so.

    The participant is the agent of an Agent-action, and Participant-response already says they
    acted; "the participant should fixate" or "a condition in which the participant attends" tells
    of no act of theirs in this event.
    """
    kept = [g for g in action_groups if not (isinstance(g, str) and g in event.dropped)]
    if event.names_agent:
        return kept
    return [g.items[1] if isinstance(g, Group) and len(g.items) == 2 and g.items[0] == "Experiment-participant"
            else g for g in kept]


def _on_screen(rest: list[str | Group], event_tags: list[str | Group]) -> tuple[list[str | Group], list[str | Group]]:
    """HED's convention for what a monitor shows: the modality grouped with the display."""
    rest = [e for e in rest if not (isinstance(e, str) and e in {"Computer-screen", "Visual-presentation"})]
    event_tags = [e for e in event_tags if e != "Visual-presentation"]
    event_tags.insert(1, Group(["Visual-presentation", "Computer-screen"]))
    return rest, event_tags


def _signal_purpose(rest: list[str | Group],
                    event_tags: list[str | Group]) -> tuple[list[str | Group], list[str | Group]]:
    """HED's way of saying what a signal is for: the effect grouped with the role, (Intended-effect, Cue)."""
    if not {"Cue", "Intended-effect"} <= {e for e in [*event_tags, *rest] if isinstance(e, str)}:
        return rest, event_tags
    rest = [e for e in rest if e not in ("Cue", "Intended-effect")]
    event_tags = [e for e in event_tags if e not in ("Cue", "Intended-effect")]
    event_tags.append(Group(["Intended-effect", "Cue"]))
    return rest, event_tags
