"""Free-text marker strings (``Block Begin: Nr.4-tilt:30-up``, ``JoypadKeyX released``) read as words.

Stimulus programs (EEGLAB, Presentation, PsychoPy, LSL) often write each event as one string: a few words,
numbers and punctuation. A column of such strings has more distinct values than a code column, yet far fewer
than a measure, and no ``#`` template can hold them (HED values take no commas, colons or brackets, and a
sentence is no name), so they are annotated level by level: a column is a marker column when its
values are that kind of text and their number is bounded (:func:`is_marker_column`).

Nobody said what a marker means, so each level's description is made up from its text read as words
(:func:`marker_description`): camelCase and ``-``/``_``/``:`` split, a few abbreviations that mean the same
in any experiment spelled out (``L``/``R``, ``stim``), and each number kept with the word that labels it
(``tilt:30`` -> "tilt 30", ``Nr.4`` after ``Block`` -> "block number 4"). The meaning is a guess, so
each such level gets a question for the lab (:mod:`bidsdata.questions`). The per-level annotator drops bare
numbers, so levels that differ only by a number would say the same; :func:`number_tags` gives each
labelled number as the value of a tag that says what it is (``Experimental-trial/9``, ``Angle/60 degree``,
``Time-interval/0.639``), from general words only.

Pure Python (hedtools only to check that a tag takes the number).
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from agents import conventions
from bidsdata.numbers import is_number

logger = logging.getLogger(__name__)

MAX_MARKER_LEVELS = 100
"""A column of marker strings with more distinct values than this is a value column (too many to ask about)."""
MIN_MARKER_SHARE = 0.25
"""At least this share of a column's distinct values must be free text (a space, comma, colon...)."""
MIN_REPEATS = 1.25
"""Markers repeat (a button press, a trial start): the rows outnumber the distinct values by this factor at
least; a column where nearly every text is new is running text (notes), not a vocabulary of events."""
_FREE_TEXT = re.compile(r"[^A-Za-z0-9_.\-]")  # a HED name holds none of these: spaces, commas, colons...
# Stimulus files (stim/face_01.bmp, tone 1.wav) are Pathname/# values, never markers.
FILE_EXTENSIONS = frozenset({"bmp", "png", "jpg", "jpeg", "gif", "tif", "tiff", "svg", "webp", "wav", "mp3", "flac",
                             "ogg", "aiff", "aif", "mp4", "avi", "mov", "mkv", "webm", "mpg", "mpeg", "txt", "csv",
                             "tsv", "json", "mat", "edf", "html", "pdf"})
# A sign, not a separator: "blue--1", "x: -3"; "hop-212" and "Nr.-05" are separators.
_SIGN = re.compile(r"(?:(?<=^)|(?<=[\s\-:,;=(]))-(?=\d)")
_TOKEN = re.compile(r"(?P<num>~?\d+(?:\.\d+)?)|(?P<word>[A-Za-z]+)|(?P<strong>[,;:=()])|(?P<weak>[\s\-_./]+)")
# "No.9", "Nr 3": the number of the thing named before; "no" alone is the answer no ("seen: no").
# Number words after a name are numbers: "ButtonOne" is button 1, told apart from button 2 by the number.
NUMBER_WORDS = {w: str(n) for n, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven",
                                                 "eight", "nine", "ten", "eleven", "twelve"))}
_INDEX_WORDS = {"no": "number", "nr": "number", "num": "number", "number": "number", "idx": "index",
                "index": "index"}
_STRUCTURE = conventions.STRUCTURE
_CONTROL = conventions.CONTROL | conventions.PAUSE | conventions.START | conventions.END
# Words whose number is a known quantity, first found in the label wins; "{}" is the number.
_VALUE_TAGS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"trial"}), "Experimental-trial/{}"),
    (frozenset({"block"}), "Time-block/{}"),
    (conventions.ANGLE | {"degrees"}, "Angle/{}"),
    (conventions.INTERVAL | {"time", "reaction"}, "Time-interval/{}"),
    (conventions.COUNT, "Item-count/{}"),
    (frozenset({"age"}), "Age/{}"),
    (conventions.FREQUENCY, "Frequency/{}"),
    (frozenset({"percent", "percentage", "pct"}), "Percentage/{}"),
    (frozenset({"subject", "participant"}), "(Experiment-participant, ID/{})"),
)
# The tag a number with a unit is a value of, by the unit's class in the schema.
_UNIT_TAGS = {"timeUnits": "Time-interval", "frequencyUnits": "Frequency", "angleUnits": "Angle"}


def is_marker_text(value: str) -> bool:
    """Whether *value* is free text no HED value template can hold: words with spaces, commas, colons..."""
    text = value.strip()
    return bool(text) and not is_number(text) and bool(_FREE_TEXT.search(text)) and not is_file_name(text)


def is_file_name(value: str) -> bool:
    """``images/face_01.bmp``, ``tone 1.wav``: a file, a ``Pathname/#`` value, never a marker."""
    text = value.strip()
    return PurePosixPath(text).suffix[1:].lower() in FILE_EXTENSIONS


def is_marker_column(counts: Mapping[str, int]) -> bool:
    """Whether a column with these distinct values (value -> rows) holds marker strings, few enough to annotate
    one by one: not numbers, not file names, at least a quarter free text, repeated, at most
    :data:`MAX_MARKER_LEVELS` of them."""
    values = [v for v in counts if v.strip()]
    if not values or len(values) > MAX_MARKER_LEVELS:
        return False
    if any(is_file_name(v) for v in values) or all(is_number(v) for v in values):
        return False
    free = sum(1 for v in values if is_marker_text(v))
    rows = sum(counts[v] for v in values)
    return free >= MIN_MARKER_SHARE * len(values) and rows >= MIN_REPEATS * len(values)


@dataclass(frozen=True)
class Part:
    """One piece of a marker: its words and, if it has one, the number they label.

    ``label`` is what the number is of ("block" for ``Block Begin: Nr.4``); it is ``words`` but for a
    number introduced by "number" or "No.", which numbers the thing named before it."""

    words: tuple[str, ...]
    number: str | None = None
    label: tuple[str, ...] = ()
    unit: str = ""

    def text(self) -> str:
        return " ".join([*self.words, *([self.number] if self.number is not None else []),
                         *([self.unit] if self.unit else [])])


def _spaced(text: str) -> str:
    """camelCase and CAPSwords apart: ``JoypadKeyX`` -> ``Joypad Key X``, ``NOThidden`` -> ``NOT hidden``."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return re.sub(r"(?<=[A-Z]{2})(?=[a-z]{2})", " ", text)


def _word(raw: str) -> list[str]:
    low = raw.lower()
    if len(raw) == 1 and raw not in "LR":  # button B, option A: a name, not an abbreviation
        return [low]
    return conventions.ABBREVIATIONS.get(low, low).split()


def read_marker(value: str) -> list[Part]:
    """*value* as parts: runs of words, each number with the words that label it.

    A number after ``:`` or ``=`` is labelled by the whole phrase before (``Gap from cue to probe:
    0.412``); after "number"/"No." by the phrase before that (``Block Begin: Nr.4`` is block number 4);
    otherwise by the word right before it (``tilt-30``, ``hop 212``)."""
    text = _SIGN.sub("~", _spaced(value))
    parts: list[Part] = []
    phrase: list[str] = []  # words since the last strong separator
    word_run: list[str] = []  # words since the last separator of any kind but space
    before: tuple[str, ...] = ()  # the phrase before the last strong separator
    last_strong = ""
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        token = m.group()
        if kind == "word" and token.lower() in NUMBER_WORDS and phrase:
            kind, token = "num", NUMBER_WORDS[token.lower()]
        if kind == "word":
            phrase += _word(token)
            word_run += _word(token)
        elif kind == "num":
            number = token.replace("~", "-")
            if phrase and phrase[-1] in _INDEX_WORDS:
                label = tuple(phrase[:-1]) or before
                words = (*phrase[:-1], _INDEX_WORDS[phrase[-1]])
            elif not phrase and last_strong in (":", "=", "") and before:  # "Latency: 0.4", "Close-Block-3"
                label = words = before
                if parts and parts[-1].words == before and parts[-1].number is None:
                    parts.pop()  # "Latency: 0.412": one part, the phrase and its number
            else:
                label = tuple(word_run[-1:]) or before
                words = tuple(phrase)
            parts.append(Part(words, number, label))
            phrase, word_run = [], []
        elif kind == "strong":
            if phrase:
                parts.append(Part(tuple(phrase)))
                before = tuple(phrase)
            phrase, word_run, last_strong = [], [], token
        elif "-" in token or "_" in token or "/" in token:
            index = phrase and phrase[-1] in _INDEX_WORDS and text[m.end():m.end() + 1] in "0123456789~"
            if phrase and not index:  # "Pid-Nr.-05": the separator does not part an index from its number
                parts.append(Part(tuple(phrase)))
                before = tuple(phrase)
                phrase, word_run = [], []
            last_strong = ""
    if phrase:
        parts.append(Part(tuple(phrase)))
    return _with_units(parts)


def _with_units(parts: list[Part]) -> list[Part]:
    """A unit word right after a number (``512ms``) goes with the number rather than into the next part."""
    out: list[Part] = []
    for part in parts:
        last = out[-1] if out else None
        unit = conventions.unit(part.words[0]) if part.words else None
        if last is not None and last.number is not None and not last.unit and unit is not None:
            out[-1] = Part(last.words, last.number, last.label, unit[0])
            if part.words[1:] or part.number is not None:
                out.append(Part(part.words[1:], part.number, part.label, part.unit))
            continue
        out.append(part)
    return out


def marker_description(value: str) -> str:
    """A made-up description of marker *value* from its words: ``Block Begin: Nr.4-tilt:30-up`` ->
    "Block begin, number 4, tilt 30, up." (a guess: the lab is asked what it means)."""
    pieces = [p.text() for p in read_marker(value) if p.words or p.number is not None]
    text = ", ".join(pieces) if pieces else value.strip()  # "left-left" and "left-right" stay apart
    return (text[:1].upper() + text[1:] + ".") if text else value


def marker_words(value: str) -> list[str]:
    """The words of marker *value*, abbreviations spelled out (numbers left out)."""
    return [w for p in read_marker(value) for w in p.words]


def event_kind(value: str) -> str | None:
    """``Experiment-structure`` or ``Experiment-control`` for a bookkeeping marker (``REST-BEGIN``, ``PAUSE``,
    ``END-Trial``): every word of it is a start, end or pause word or names a part of the experiment."""
    words = set(marker_words(value)) - {"of", "the", "a"}
    if not words or not words <= _STRUCTURE | _CONTROL:
        return None
    return "Experiment-structure" if words & _STRUCTURE else "Experiment-control"


def _label(words: tuple[str, ...]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(words)).strip("-") or "value"


def _candidates(part: Part) -> list[str]:
    number = part.number
    assert number is not None
    value = float(number)
    found = []
    for words, template in _VALUE_TAGS:
        if words & set(part.label):
            tag = template.format(number)
            if part.unit:
                tag = template.format(f"{number} {part.unit}")
            elif template.startswith("Angle/") and abs(value) > 2 * math.pi:  # more than a turn: degrees
                tag += " degree"
            found.append(tag)
            break
    unit = conventions.unit(part.unit) if part.unit else None
    if unit is not None:  # "1000 Hz" says what it is whatever labels it
        found.append(f"(Parameter-label/{_label(part.label)}, {_UNIT_TAGS[unit[1]]}/{number} {part.unit})")
    name = _label(part.label)
    if number.lstrip("-").isdigit() and value >= 0:
        found.append(f"(Parameter-label/{name}, Item-index/{number})")  # "hop 212": the 212th, or number 212
    elif not number.lstrip("-").isdigit():
        found.append(f"(Parameter-label/{name}, Time-value/{number})")  # a decimal with no unit: seconds, a guess
    found.append(f"(Parameter-label/{name}, Parameter-value/{number})")
    return found


_SHAPE = re.compile(r"\d+")


@functools.lru_cache(maxsize=4096)
def _takes(shape: str, hed_version: str | tuple[str, ...] | None) -> bool:
    from bidsdata.schemas import validate_hed_string

    return not validate_hed_string(shape, list(hed_version) if isinstance(hed_version, tuple) else hed_version)


def _accepted(tag: str, hed_version: str | list[str] | None) -> bool:
    """Whether hedtools accepts *tag*; asked once per shape (its digits all ``1``: ``Angle/1 degree``), since the
    value's class, not its digits, decides (a pattern column asks this for thousands of strings of one form)."""
    return _takes(_SHAPE.sub("1", tag), tuple(hed_version) if isinstance(hed_version, list) else hed_version)


def number_tags(value: str, hed_version: str | list[str] | None) -> list[str]:
    """A HED tag (or group) for each labelled number of marker *value*: the first that hedtools accepts."""
    tags: list[str] = []
    for part in read_marker(value):
        if part.number is None:
            continue
        for tag in _candidates(part):
            if tag not in tags and _accepted(tag, hed_version):
                tags.append(tag)
                break
    logger.debug("marker %r: number tags %s", value, tags)
    return tags
