"""Things that last: a start level and its end level become the ``Onset`` and ``Offset`` of one definition.

Labs mark what lasts (a clip playing, a correction under way, a block) with one code where it starts and
another where it ends; a curator writes one definition of the thing, ``(Def/X, Onset)`` on the start level
and ``(Def/X, Offset)`` on the end level. The two are found by meaning, not by their codes:

- a level's side is its start or end word ("begins", "has completed"); where two descriptions are the same
  but for one word and one of them has a start or end word there, the other word marks the other side
  (a misspelt "end" still ends what the other level starts);
- a start and an end pair up when what is left of their words says the same thing, compared by word stems
  ("correcting the lane position" and "the lane position correction" are one thing), or failing that when
  each is the other's closest, sharing most of their words.

The definition holds what the thing is: where the lab's sidecar describes it under an entry that is no
column (a legend of named things, :meth:`~bidsdata.inventory.TaskInventory.legend`), that description read
as HED together with what the start level adds (a sign's speed, a clip's kind); else the start level's own
annotation. Pure: no Django; words are stemmed with the Snowball stemmer.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import snowballstemmer

from bidsdata.composition import cues
from bidsdata.composition.events import complete_event
from bidsdata.composition.tags import EVENT_TYPES, TASK_ROLES, Names, shorts, top_level_items

# Words that carry no meaning of their own in a description of what lasts ("the end of a trial").
_FILLER = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "for", "and", "or", "by", "with", "from", "is",
                     "are", "was", "were", "be", "been", "being", "has", "have", "had", "this", "that", "it", "its",
                     "now", "then", "again", "marker", "code", "trigger", "event"})
MIN_PREFIX = 4
"""Two stems of at least this length are one word where one begins the other ("fail" and "failur")."""
MIN_SHARED = 0.5
"""A start and an end that are not the same in their words pair only when they share this share of them."""


@functools.cache
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


def stems(words: list[str], *, numbers: bool = True) -> frozenset[str]:
    """The stems of *words* that carry meaning: no filler, no start or end word (nor a bare number, unless
    *numbers*: "the 25 mph sign" and "the 45 mph sign" are two things)."""
    kept = [w for w in words if w not in _FILLER and not cues.bound([w]) and (numbers or not cues.NUMBER.match(w))]
    return frozenset(_stemmer().stemWords(kept))


def _same(a: str, b: str) -> bool:
    """Whether two stems are one word: equal, or one begins the other ("fail", "failur"), but for the one who
    does it ("drive", "driver": the doer is not the deed)."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= MIN_PREFIX and long.startswith(short) and long[len(short):] not in _DOER


_DOER = frozenset({"er", "or", "r"})


def shared(a: frozenset[str], b: frozenset[str]) -> int:
    """How many stems of *a* have one of *b* that is the same word."""
    return sum(1 for x in a if any(_same(x, y) for y in b))


def _alike(a: frozenset[str], b: frozenset[str]) -> float:
    """How much two sets of stems say the same thing: shared stems over all of them (0..1)."""
    if not a or not b:
        return 0.0
    common = shared(a, b)
    return common / (len(a) + len(b) - common)


@dataclass(frozen=True)
class Pair:
    """A start level, its end level, and the words that name what lasts between them."""

    start: str
    end: str
    words: tuple[str, ...]


def sides(described: Mapping[str, list[str]]) -> dict[str, str]:
    """level -> ``start`` or ``end`` for the levels whose words mark the start or the end of something.

    A level with no such word of its own takes the other side where its words are another level's but for one,
    and that one is a start or end word there ("the clip enda" beside "the clip starts")."""
    found = {level: side for level, words in described.items() if (side := cues.bound(words))}
    for level, words in described.items():
        if level in found:
            continue
        for other, side in list(found.items()):
            theirs = described[other]
            if len(theirs) != len(words):
                continue
            differ = [i for i, (a, b) in enumerate(zip(words, theirs, strict=True)) if a != b]
            if len(differ) == 1 and cues.bound([theirs[differ[0]]]):
                found[level] = "end" if side == "start" else "start"
                break
    return found


def pairs(described: Mapping[str, list[str]]) -> list[Pair]:
    """The start/end pairs among the levels *described* (level -> its words), each level in one pair at most."""
    side = sides(described)
    starts = {lv: stems(described[lv]) for lv, s in side.items() if s == "start"}
    ends = {lv: stems(described[lv]) for lv, s in side.items() if s == "end"}
    found: list[Pair] = []

    def take(start: str, end: str) -> None:
        words = tuple(w for w in described[start] if w not in _FILLER and not cues.bound([w]))
        found.append(Pair(start, end, words or tuple(described[start])))
        del starts[start], ends[end]

    # The same thing said twice first; then the closest remaining, where each is the other's closest.
    for start, end in itertools.product(list(starts), list(ends)):
        if start in starts and end in ends and starts[start] and starts[start] == ends[end] \
                and sum(1 for s in ends.values() if s == starts[start]) == 1:
            take(start, end)
    while True:
        scored = [(_alike(a, b), s, e) for (s, a), (e, b) in itertools.product(starts.items(), ends.items())]
        scored = [x for x in scored if x[0] >= MIN_SHARED]
        if not scored:
            break
        best, start, end = max(scored, key=lambda x: x[0])
        if sum(1 for x in scored if x[0] == best and (x[1] == start or x[2] == end)) > 1:
            break  # two readings as close as each other: which ends which is the lab's to say
        take(start, end)
    return found


def legend_entry(words: tuple[str, ...], legend: Mapping[str, str]) -> str | None:
    """The name of the legend entry (name -> description) that *words* name, if one does clearly.

    An entry is named when most of its name's words are among *words*; between entries named alike, the one
    whose name and description share more of the words."""
    said = stems(list(words), numbers=False)
    best: tuple[float, float, str] | None = None
    tie = False
    for name, description in legend.items():
        own = stems(cues.words(name))
        if not own:
            continue
        named = shared(own, said) / len(own)
        if named < MIN_SHARED:
            continue
        score = (named, _alike(said, own | stems(cues.words(description))), name)
        if best is not None and score[:2] == best[:2]:
            tie = True
        if best is None or score[:2] > best[:2]:
            best, tie = score, False
    return None if best is None or tie else best[2]


def _beside(content: str, own: str, known: Names) -> str:
    """*content* with the items of *own* that give a value *content* has none of (the start level's "45 mph" to
    the legend's "a sign of a speed"): what sets this thing apart from others the legend describes alike."""
    present = set(shorts(content, known))
    extra = [item for item in top_level_items(own) if _VALUED.search(item)
             and (tags := set(shorts(item, known)) - EVENT_TYPES - TASK_ROLES) and not tags <= present]
    return ", ".join([content, *extra]) if extra else content


_VALUED = re.compile(r"/\s*[-+]?\d")


def content_of(pair: Pair, own_hed: str, legend: Mapping[str, str], read: Callable[[str], str], known: Names,
               modality: str) -> tuple[str, str]:
    """The definition's name words and content for *pair*: the start level's own HED where it says what the
    thing is, else the legend's description of the thing where an entry names it (with the values the start
    level adds); completed as one event. The level's own short words are read more surely than a legend's
    sentences, which often explain rather than say what the thing is."""
    entry = legend_entry(pair.words, legend)
    if entry is None:
        return "", complete_event(own_hed, list(pair.words), known, modality)
    described = "" if names_something(own_hed, known) else read(legend[entry]).strip()
    if not described:
        return "-".join(cues.words(entry)), complete_event(own_hed, list(pair.words), known, modality)
    words = cues.words(legend[entry]) + list(pair.words)
    return "-".join(cues.words(entry)), complete_event(_beside(described, own_hed, known), words, known, modality)


def names_something(hed: str, known: Names) -> bool:
    """Whether *hed* says what the thing is: a tag besides event types, task roles and the bare ``Event``."""
    return bool(set(shorts(hed, known)) - EVENT_TYPES - TASK_ROLES - {"event"})


__all__ = ["Pair", "content_of", "legend_entry", "pairs", "sides", "stems"]
