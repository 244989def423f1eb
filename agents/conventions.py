"""HED's conventions as data, and the English words that point to them: one home for the composer
(:mod:`bidsdata.composition`), the marker reader, the value templates and the offline annotator.

Tag sets are never typed in here. What hedtools' ``EventChecker`` asks of an event (one of
:data:`EVENT_TYPES`; a task role from :data:`TASK_ROLES` unless it is one of :data:`NON_TASK_EVENTS`) is read
from hedtools itself; the senses (the ``*-presentation`` children of ``Sensory-presentation``), the actions a
participant answers with and the units are read from the cached schema (:mod:`agents.schema`).

The English word lists say which general words signal a sense, a response, a cue, feedback, an instruction,
control of the recording, a part of the experiment, or the start or end of something. They are general
English, never words taken from a particular dataset: where the schema has words (the names of its actions,
the words of its descriptions of the senses, its names of sounds) they come from there, plus plain synonyms.
Lists hold base forms; :func:`forms` gives a written word's base forms (lemminflect), so "pressed" and
"heard" are found as "press" and "hear".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from hed.tools.analysis.event_checker import EventChecker
from lemminflect import getAllLemmas

from agents.schema import DEFAULT_SCHEMA_VERSION
from agents.vocabulary import get_vocabulary

# --- what hedtools' EventsChecker asks of an event (short names, as the schema writes them) ---------------------
EVENT_TYPES: frozenset[str] = frozenset(EventChecker.EVENT_TAGS)
NON_TASK_EVENTS: frozenset[str] = frozenset(EventChecker.NON_TASK_EVENTS)
TASK_ROLES: frozenset[str] = frozenset(EventChecker.TASK_ROLES)
ACTION_ROLES: frozenset[str] = frozenset(EventChecker.ACTION_ROLES)
STIMULUS_ROLES: frozenset[str] = frozenset(EventChecker.STIMULUS_ROLES)


def lower(tags: Iterable[str]) -> frozenset[str]:
    """*tags* in lower case, as the composer compares short names."""
    return frozenset(t.lower() for t in tags)


# --- English words, base forms -----------------------------------------------------------------------------------
# Plain synonyms of each sense, beside the words the schema gives (see :func:`sense_words`).
_SENSE_SYNONYMS: dict[str, frozenset[str]] = {
    "visual": frozenset({"show", "display", "image", "picture", "photo", "face", "circle", "cross", "fixation",
                         "screen", "square", "bar", "text", "word", "letter", "flash", "video", "movie", "look",
                         "color", "colour", "red", "green", "blue", "white", "black", "checkerboard", "grating",
                         "arrow", "dot", "scene", "shape", "light", "drawing", "appear", "present", "presentation",
                         "stimulus", "see"}),
    "auditory": frozenset({"sound", "beep", "noise", "click", "audio", "voice", "spoken", "speech", "music",
                           "syllable", "hz", "khz", "hear", "listen"}),
    "tactile": frozenset({"vibration", "vibrotactile", "tap", "tactile"}),
    "somatic": frozenset({"shock", "somatosensory", "pain", "painful", "heat", "thermal", "electrical",
                          "stimulation", "nociceptive"}),
    "olfactory": frozenset({"odor", "odour", "scent"}),
    "gustatory": frozenset({"flavor", "flavour", "sweet", "sour", "bitter", "salty"}),
}
# Words that say the participant answers, beside the schema's names of bodily actions (see :func:`action_words`).
RESPONSE = frozenset({"response", "respond", "answer", "reply", "button", "key", "keypress", "keystroke", "click",
                      "choose", "choice", "select", "selection", "decide", "decision", "rating", "rate", "movement"})
# Words mapped to an action the schema has under another name; the schema's own names map to themselves.
ACTION_SYNONYMS = {"button": "Press", "key": "Press", "keypress": "Press", "keystroke": "Press", "click": "Press",
                   "move": "Move", "movement": "Move", "pull": "Retract", "squeeze": "Make-fist", "grip": "Grasp"}
# Where the schema keeps the actions a participant answers with (each subtree's one-word names).
_ACTION_SUBTREES = ("Move-upper-extremity", "Move-eyes", "Communicate-vocally", "Respond", "Allow", "Deny")
# Action names that in a description more often name a thing or where one looks while something is shown:
# "a fixation point", "a drop of water", "fixate the cross".
_NOT_ACTIONS = frozenset({"point", "drop", "fixate", "stare"})
CUE = frozenset({"cue", "signal", "prompt", "warning"})
FEEDBACK = frozenset({"feedback", "reward", "outcome", "win", "lose", "loss", "correct", "incorrect", "penalty"})
INSTRUCTION = frozenset({"instruction", "instructional", "rest", "break"})
# Events about the recording itself rather than the task.
CONTROL = frozenset({"recording", "record", "pause", "resume", "continue", "setup", "sync", "synchronization",
                     "boundary", "calibration", "failure", "marker"})
# A pause in the task (its start or end marks no stimulus).
PAUSE = frozenset({"pause", "resume", "continue", "break", "rest"})
# What a number is of, in a column name or a marker: quantities with a tag of their own.
INTERVAL = frozenset({"interval", "isi", "soa", "iti", "delay", "latency", "duration", "wait", "between", "gap"})
COUNT = frozenset({"count", "total", "amount"})
FREQUENCY = frozenset({"frequency", "freq", "hz", "pitch"})
ANGLE = frozenset({"angle", "orientation", "rotation", "tilt", "deg", "degree"})
IDENTIFIER = frozenset({"id", "identifier", "code", "marker", "trigger"})
FILE = frozenset({"file", "filename", "path", "pathname", "filepath"})
STRUCTURE = frozenset({"trial", "block", "run", "session", "sequence", "epoch", "baseline", "experiment",
                       "segment", "practice", "training"})
# Written out with their inflections (some callers compare words as written).
START = frozenset({"start", "starts", "started", "starting", "begin", "begins", "began", "beginning", "onset", "on",
                   "open", "opens", "enter", "enters"})
END = frozenset({"end", "ends", "ended", "stop", "stops", "stopped", "offset", "off", "finish", "finishes",
                 "finished", "close", "closes", "closed", "exit", "exits", "terminate", "terminates", "quit", "abort",
                 "complete", "completes", "completed", "completion"})
# Words that mark a change-point of something that lasts ("the block starts", "a new run").
BOUNDARY = frozenset({"start", "starts", "started", "starting", "begin", "begins", "beginning", "began", "end",
                      "ends", "ended", "ending", "stop", "stops", "stopped", "finish", "finishes", "finished", "onset",
                      "offset", "resume", "resumes", "resumed", "restart", "change", "changes", "new"})
# Parts of an experiment's timeline that have no tag of their own.
TIMELINE_NOUNS = frozenset({"experiment", "session", "phase", "run", "practice", "window", "period"})
# Words a column name or description uses for a factor of the design.
CONDITION = frozenset({"factor", "condition", "cond", "group", "block", "phase", "difficulty", "load",
                       "congruency", "context", "instruction", "variable", "contrast"})
# Abbreviations that mean the same in any experiment; one-letter ones only as L and R alone.
ABBREVIATIONS = {"l": "left", "r": "right", "stim": "stimulus", "resp": "response", "fb": "feedback",
                 "fix": "fixation", "instr": "instruction", "warn": "warning", "btn": "button", "rt": "reaction time",
                 "sub": "subject", "subj": "subject", "exp": "experiment", "base": "baseline", "cond": "condition",
                 "corr": "correct", "incorr": "incorrect", "img": "image", "pic": "picture", "snd": "sound",
                 "trl": "trial", "blk": "block"}
# File extensions of stimulus files and the sense they are presented to (a column of ``.wav`` names is heard).
MEDIA_EXTENSIONS = {
    **dict.fromkeys((".wav", ".mp3", ".flac", ".ogg", ".aif", ".aiff", ".m4a"), "Auditory-presentation"),
    **dict.fromkeys((".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".svg", ".webp", ".mp4", ".avi", ".mov",
                     ".mkv", ".wmv", ".mpg", ".mpeg"), "Visual-presentation"),
}
# Unit spellings people write that the schema spells otherwise.
UNIT_ABBREVIATIONS = {"msec": "ms", "msecs": "ms", "sec": "s", "secs": "s", "deg": "degree", "hz": "Hz", "khz": "kHz"}
_EXPERIMENT_UNIT_CLASSES = ("timeUnits", "frequencyUnits", "angleUnits")
# Prefixes an experiment's numbers use; the schema derives every SI prefix ("as" is an attosecond, "us" a
# microsecond), which read as English words in a marker.
_USUAL_PREFIXES = ("", "m", "k", "milli", "kilo")
_WORD = re.compile(r"[a-z]+|\d+")


@functools.cache
def forms(word: str) -> frozenset[str]:
    """*word* (lower case) and its base forms: "pressed" -> press, "heard" -> hear, "images" -> image."""
    found = {word}
    for lemmas in getAllLemmas(word).values():
        found.update(lemmas)
    return frozenset(found)


def is_plural_noun(word: str) -> bool:
    """Whether *word* is a noun's plural ("pictures", "items"; not "was", "this")."""
    nouns = getAllLemmas(word).get("NOUN", ())
    return bool(nouns) and word not in nouns


def said(words: Iterable[str], listed: Iterable[str]) -> list[str]:
    """The *words* that one of the *listed* base forms names, in order."""
    wanted = set(listed)
    return [w for w in words if forms(w) & wanted]


def words(*texts: str) -> list[str]:
    """Lower-case words of *texts*; names split at ``_``, ``-``, ``/`` and case changes."""
    out: list[str] = []
    for text in texts:
        spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text or "")
        out.extend(_WORD.findall(spaced.lower()))
    return out


# --- read from the schema ----------------------------------------------------------------------------------------
@functools.cache
def sense_words(version: str = DEFAULT_SCHEMA_VERSION) -> dict[str, frozenset[str]]:
    """Presentation tag (``Auditory-presentation``...) -> the base forms that point to that sense.

    From the schema: the tag's own first word ("auditory"), what its description names the sense ("the sense
    of hearing": hearing, hear), and for hearing the names of sounds (Tone, Beep...); then
    :data:`_SENSE_SYNONYMS`."""
    vocab = get_vocabulary(version)
    sounds = {i.name.lower() for i in vocab.all() if vocab.is_under(i.name, "Sound") and "-" not in i.name}
    out: dict[str, frozenset[str]] = {}
    for info in vocab.all():
        if info.parent != "Sensory-presentation" or not info.name.endswith("-presentation"):
            continue
        sense = info.name.split("-")[0].lower()
        found = {sense, *re.findall(r"sense (?:of )?([a-z]+)", info.description.lower())}
        if sense == "auditory":
            found |= sounds
        found |= _SENSE_SYNONYMS.get(sense, frozenset())
        found |= {lemma for w in list(found) for lemma in forms(w)}
        out[info.name] = frozenset(found)
    return out


@functools.cache
def action_words(version: str = DEFAULT_SCHEMA_VERSION) -> dict[str, str]:
    """Base form -> action tag, for the one-word actions a participant answers with.

    The schema's own names under :data:`_ACTION_SUBTREES` (press, release, lift, grasp, blink, speak, respond,
    allow, deny...) but :data:`_NOT_ACTIONS`, plus :data:`ACTION_SYNONYMS`."""
    vocab = get_vocabulary(version)
    out: dict[str, str] = {}
    for info in vocab.all():
        if vocab.is_deprecated(info.name) or "-" in info.name:
            continue
        if info.name.lower() not in _NOT_ACTIONS and any(vocab.is_under(info.name, a) for a in _ACTION_SUBTREES):
            out[info.name.lower()] = info.name
    out.update((w, t) for w, t in ACTION_SYNONYMS.items() if t in vocab)
    return out


@functools.cache
def modalities(version: str = DEFAULT_SCHEMA_VERSION) -> frozenset[str]:
    """Short names (lower case) of every tag under ``Sensory-presentation``."""
    vocab = get_vocabulary(version)
    return frozenset(i.name.lower() for i in vocab.all() if vocab.is_under(i.name, "Sensory-presentation"))


def _usual(spelling: str, bases: Iterable[str]) -> bool:
    return any(spelling == prefix + base + plural for base in bases for prefix in _USUAL_PREFIXES
               for plural in ("", "s"))


@functools.cache
def _experiment_units(version: str) -> dict[str, tuple[str, str]]:
    """Lower-case spelling -> (the schema's spelling, unit class) for time, frequency and angle units."""
    from agents.schema import get_schema

    schema = get_schema(version)
    out: dict[str, tuple[str, str]] = {}
    for name in _EXPERIMENT_UNIT_CLASSES:
        unit_class = schema.unit_classes.get(name)
        if unit_class is None:
            continue
        bases = list(unit_class.units)
        for spelling in getattr(unit_class, "derivative_units", None) or bases:
            # Case tells ms from Ms: a lower-case spelling wins its lower-case key.
            if _usual(spelling, bases) and (spelling.lower() not in out or spelling == spelling.lower()):
                out[spelling.lower()] = (spelling, name)
    for written, spelling in UNIT_ABBREVIATIONS.items():
        if spelling.lower() in out:
            out.setdefault(written, out[spelling.lower()])
    return out


def unit(written: str, version: str = DEFAULT_SCHEMA_VERSION) -> tuple[str, str] | None:
    """(the schema's spelling, its unit class) for a time, frequency or angle unit as written ("512ms" has
    "ms", "2 secs" "secs" -> ("s", "timeUnits")); None for anything else."""
    return _experiment_units(version).get(written.strip().lower())
