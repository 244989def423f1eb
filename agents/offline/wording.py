"""One description's words and what their phrasing says beyond the tags (the ``Clues`` of its event).

The composer (``rules.Composer``) builds on this: it needs the same clauses and matched words to
bind units, and the clues read here decide the event-level tags (``events.infer_event``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.offline.event_kinds import (
    RESPONSE_ACTIONS,
    STIMULUS_ITEMS,
    STIMULUS_ROLES,
    STRUCTURE_NOUNS,
    Clues,
    under,
)
from agents.offline.text import lemma_candidates

if TYPE_CHECKING:
    from agents.offline.units import Unit
    from agents.vocabulary import Vocabulary

# Articles and "of": the glue inside a noun phrase ("a picture of a face").
OF_GLUE = frozenset({"of", "a", "an", "the"})
# Words right before a verb that make it asked for, not done: "which key to press", "should attend".
_DIRECTIVES = frozenset({"to", "should", "must"})
# Light verbs: with an action noun they say the subject does it ("gives a detection", "makes a choice").
_LIGHT_VERBS = frozenset({"give", "gives", "gave", "given", "giving", "make", "makes", "made", "making",
                          "provide", "provides", "provided", "providing"})
# Verbs by which a stimulus comes to be presented, as its clause's verb ("a tone follows", "a face appears",
# "a signal is given"), in their base forms.
_PRESENTING_VERBS = frozenset({"follow", "precede", "appear", "show", "present", "give", "play", "display",
                               "flash", "occur", "come", "sound", "onset", "start", "begin"})
# People, who may be the participant, and what people operate: a person, or a vehicle or device someone
# drives, named as the subject may be the participant acting in the task.
_PEOPLE = ("Human", "Agent", "Body", "Body-part", "Vehicle", "Device")
# Tags of attending: like an action, they can be asked for ("should attend").
_ATTENTION = ("Task-attentional-demand", "Attend-to", "Switch-attention")


class Wording:
    """The words of one description, its clause breaks, which words the lexicon matched, and its clues."""

    def __init__(self, vocab: Vocabulary, words: list[str], breaks: list[int], matched: set[int], *,
                 withheld: bool = False, condition: bool = False, marks: bool = False,
                 silent: frozenset[int] = frozenset()) -> None:
        self.vocab = vocab
        # Words left unsaid on purpose ("either the left or the right"): they separate nothing.
        self.silent = silent
        self.marks = marks  # a purpose clause says the event marks something ("to signal the start")
        self.withheld = withheld  # a presentation word is negated: nothing is shown or played
        self.condition = condition  # the description defines a condition rather than telling of an event
        self.words = words
        self.breaks = breaks
        self.matched = matched

    def _gap(self, a: int, b: int) -> set[str]:
        return set(self.words[a + 1 : b])

    def _same_clause(self, a: int, b: int) -> bool:
        lo, hi = min(a, b), max(a, b)
        return not any(lo < k < hi for k in self.breaks)

    # --- clues, one step each -----------------------------------------------------------------
    def _asked_by(self, u: Unit) -> str:
        """The directive word right before *u*, maybe past one adverb ("should only attend"); "" if none."""
        before = [i for i in range(max(0, u.first - 2), u.first) if self._same_clause(i, u.first)]
        if before and self.words[before[-1]] in _DIRECTIVES and before[-1] not in self.matched:
            return self.words[before[-1]]
        if (len(before) == 2 and self.words[before[0]] in _DIRECTIVES and before[0] not in self.matched
                and before[1] not in self.matched and self.words[before[1]] != "be"):
            return self.words[before[0]]
        return ""

    def _asked(self, units: list[Unit]) -> dict[int, str]:
        """The directive word before each action or act of attending, by the unit's id ("" if done)."""
        return {id(u): self._asked_by(u) for u in units
                if u.kind == "action" or any(self.vocab.is_under(u.tag, a) for a in _ATTENTION)}

    def _signalled(self, units: list[Unit], asked: dict[int, str]) -> frozenset[str]:
        """ "an arrow telling which key to press": the thing shown signals the response."""
        first_item = min((u.first for u in units if u.kind == "item"), default=len(self.words))
        return frozenset(u.tag for u in units if asked.get(id(u)) == "to" and u.first > first_item)

    @staticmethod
    def _imagined(units: list[Unit]) -> bool:
        """An action imagined ("imagine squeezing"); the imagining itself is then said by Imagined-action.

        Marks the "imagine" units used when another action is what is imagined.
        """
        imagine = [u for u in units if u.tag == "Imagine"]
        others = [u for u in units if u.kind == "action" and u.tag != "Imagine"]
        for u in imagine if others else []:
            u.used = True  # the imagined action is tagged itself, as Imagined-action
        return bool(others) and (bool(imagine) or any(u.tag == "Imagined-action" for u in units))

    def _naming(self, units: list[Unit]) -> frozenset[str]:
        """ "the rest period", "a practice run": an action naming a part of the experiment is not done now."""
        return frozenset(u.tag for u in units if u.kind == "action" and (
            self.words[u.last] in STRUCTURE_NOUNS or (u.last + 1 < len(self.words)
                                                      and self.words[u.last + 1] in STRUCTURE_NOUNS)))

    def _both(self, units: list[Unit], directed: frozenset[str]) -> bool:
        """ "presses both keys": an answer given with both of the response keys says neither answer;
        "press both keys to continue" is a purpose of its own, not an answer."""
        return any(u.tag in RESPONSE_ACTIONS and u.tag not in directed and u.last + 1 < len(self.words)
                   and self.words[u.last + 1] == "both" and "to" not in self.words[u.last:] for u in units)

    def _after_light_verb(self, u: Unit, described: set[int]) -> bool:
        """A light verb shortly before *u* in its clause, with only articles, modifiers or unknown words between."""
        return any(
            self.words[i] in _LIGHT_VERBS and self._same_clause(i, u.first) and all(
                self.words[k] in OF_GLUE or k in described or k not in self.matched for k in range(i + 1, u.first))
            for i in range(max(0, u.first - 3), u.first))

    def _made(self, units: list[Unit], directed: frozenset[str]) -> bool:
        """ "gives a detection of the target", "makes a quick judgement": a mental act made known is done."""
        described = {i for u in units if u.kind in {"attribute", "state"} for i in range(u.first, u.last + 1)}
        return any(u.kind == "action" and u.tag not in directed and self._after_light_verb(u, described)
                   for u in units)

    def _presented(self, units: list[Unit]) -> bool:
        """ "a stop signal follows the go stimulus, but the participant responds anyway": a stimulus (a stimulus
        role or a stimulus item) opening its clause with a presenting verb after it is presented in this event.

        A stimulus after the verb ("responds to the target") names what was answered, not what is shown."""
        for u in units:
            if not (u.tag in STIMULUS_ROLES or (u.kind == "item" and under(self.vocab, u.tag, STIMULUS_ITEMS))):
                continue
            start = max([k + 1 for k in self.breaks if k < u.first], default=0)
            if any(start <= v.first < u.first for v in units) or not set(self.words[start : u.first]) <= OF_GLUE:
                continue  # not its clause's subject
            end = min([k for k in self.breaks if k > u.last], default=len(self.words))
            if any({self.words[k], *lemma_candidates(self.words[k])} & _PRESENTING_VERBS
                   for k in range(u.last + 1, min(end, u.last + 4))):
                return True
        return False

    def _thing_acts(self, units: list[Unit]) -> bool:
        """ "A ball rolls across the screen": the first clause's subject is a thing (no person) and an action
        follows it in that clause. The subject of a sentence is who acts; the participant is not named."""
        first = next((u for u in units if u.kind in {"item", "agent", "action"}), None)
        if first is None or first.kind != "item" or under(self.vocab, first.tag, _PEOPLE):
            return False
        if not set(self.words[: first.first]) <= OF_GLUE:
            return False  # not the clause's subject
        end = min([k for k in self.breaks if k > first.last], default=len(self.words))
        return any(u.kind == "action" and first.last < u.first < end for u in units)

    def _person_acts(self, units: list[Unit]) -> bool:
        """ "The driver corrects the lane": a person opens the first clause and an action role follows in it as a
        verb ("corrects", "correcting", "corrected"; not the noun "correction"): the act is the person's.
        Only a role that is itself an act (:data:`SELF_ACTS`): "the listener failed to respond" judges an act."""
        first = next((u for u in units if u.kind in {"item", "agent", "action"}), None)
        if first is None or not (first.kind == "agent" or under(self.vocab, first.tag, _PEOPLE)):
            return False
        if not set(self.words[: first.first]) <= OF_GLUE:
            return False
        end = min([k for k in self.breaks if k > first.last], default=len(self.words))
        return any(u.tag in SELF_ACTS and first.last < u.first < end and _verb_form(self.words[u.first])
                   for u in units)

    def clues(self, units: list[Unit]) -> Clues:
        """What the wording says of *units* beyond their tags: asked for, signalled, imagined, made."""
        asked = self._asked(units)
        signalled = self._signalled(units, asked)
        imagined = self._imagined(units)
        directed = frozenset(u.tag for u in units if asked.get(id(u)) and u.kind == "action") | self._naming(units)
        return Clues(directed, any(asked.values()), signalled, imagined, self.withheld, self.condition, self.marks,
                     self._both(units, directed), self._made(units, directed),
                     self._presented(units), self._thing_acts(units),
                     self._person_acts(units))


# Action roles that are an act of their own (HED: "an action offering an improvement to replace a mistake"),
# not a judgement of another act (Incorrect-action, Omitted-action, Miss...).
SELF_ACTS = frozenset({"Correction"})


def _verb_form(word: str) -> bool:
    """A word inflected as a verb (third person, participle, past), not a noun of the same stem."""
    return word.endswith(("s", "ing", "ed")) and not word.endswith(("ss", "ness", "ions", "ments"))
