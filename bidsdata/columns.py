"""What kind of column a column is when its sidecar entry does not say: names and values read as a curator would.

``skip`` for bookkeeping (sample positions; row and event counters, named as such or counting up by one
within each file; trial numbers are values, ``Experimental-trial/#``), ``categorical`` for codes (text with
few values, or few whole numbers under a name that is no magnitude: ``response`` 1/2, ``value`` 11/12) and
for free-text marker strings few enough to ask about (``Block Begin: Nr.4-tilt:30``: see
:mod:`bidsdata.markers`), ``value`` for magnitudes and other numbers, and for anything with too many distinct
values to annotate one by one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from bidsdata.markers import is_file_name, is_marker_column
from bidsdata.numbers import is_integer, is_number

ColumnKind = Literal["categorical", "value", "skip"]

MAX_LEVELS = 20
"""A column without a sidecar entry and with more distinct non-numeric values than this is a value column."""
MAX_CODE_LEVELS = 8
"""A column of whole numbers with at most this many distinct values is a code (categorical), unless its name
says it is a magnitude."""
MIN_COUNTER_VALUES = 3
"""A column counts up by one (1, 2, 3...) in a file of at least this many values to be taken for a counter."""
MAGNITUDES = frozenset({"gain", "loss", "amount", "reward", "price", "time", "rt", "duration", "latency", "age",
                        "count", "size", "distance", "intensity", "volume", "frequency"})
"""Words naming a quantity: a column named with one holds a measure, whatever its few values."""
TRIAL_COUNTERS = frozenset({"trial", "trial number", "trial num", "trial nr", "trial no", "trial index"})
"""Names (humanized) of columns that number the trials: each row's trial, ``Experimental-trial/#``."""
COUNTERS = frozenset({"event number", "event num", "row", "row number", "line", "line number"})
"""Names (humanized) of columns that number the rows or events: bookkeeping."""


def humanize(name: str) -> str:
    """``event_type`` -> ``event type``; ``showFace`` -> ``show face``."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(name))
    return re.sub(r"[\s_\-]+", " ", text).strip().lower()


EVENT_TYPE_NAME = re.compile(r"(^|_)(event|trial)(_?type)?$|^type$|^stim(ulus)?_?type$", re.IGNORECASE)
"""Column names BIDS datasets give the column that carries the event's type (``event_type``, ``trial_type``,
``type``, ``stim_type``): the one rule the sidecar's column order and the composer's event role use."""


def names_event_type(name: str) -> bool:
    """Whether a column's name says it carries the event's type (:data:`EVENT_TYPE_NAME`)."""
    return EVENT_TYPE_NAME.search(name) is not None


_SHORT_NOUNS = {"stim": "stimulus", "resp": "response"}


def made_up_description(column: str, value: str) -> str:
    """A level's description from the names alone, as English: a column naming the type of something reads its
    level as a kind of that thing (``trial_type``/``go`` -> "go trial", ``stim_type``/``face`` -> "face
    stimulus"), so the words the level and its column make together are read; other columns read
    ``block_mode``/``fast_pace`` -> "block mode: fast pace". A number stays as written (``answer_code``/``-1`` ->
    "answer code: -1", not "answer code: 1")."""
    words = humanize(column).split()
    if is_number(value):
        return f"{' '.join(words)}: {value}"
    level = humanize(value)
    if len(words) == 2 and words[1] == "type":
        noun = _SHORT_NOUNS.get(words[0], words[0])
        return level if level.split()[-1:] == [noun] else f"{level} {noun}"
    return f"{' '.join(words)}: {level}"


def is_magnitude(name: str) -> bool:
    """Whether a column's name says it measures something (gain, rt, n_trials...) rather than codes it."""
    words = humanize(name).split()
    plain = {w.removesuffix("es") if w.removesuffix("es") in MAGNITUDES else w.removesuffix("s") for w in words}
    return bool(plain & MAGNITUDES) or "number of" in " ".join(words) or (len(words) > 1 and words[0] == "n")


def numbers_trials(name: str, values: list[str]) -> bool:
    """Whether a column numbers the trials (``trial``, ``trial_number``) with whole numbers: which trial each
    row belongs to is said of its event (``Experimental-trial/#``), not bookkeeping."""
    return " ".join(humanize(name).split()) in TRIAL_COUNTERS and bool(values) and all(is_integer(v) for v in values)


def is_bookkeeping(name: str, values: list[str], counter: bool) -> bool:
    """Sample positions and row or event counters: columns that number the rows, saying nothing of an event.

    A counter is named as one (``event_number``, ``*_index``) and holds whole numbers (*values*, its distinct
    ones), or counts up by one within each file (*counter*, from the scans). Trial numbers are no bookkeeping
    (:func:`numbers_trials`).
    """
    words = humanize(name).split()
    if words and words[-1] == "sample":
        return True
    if numbers_trials(name, values):
        return False
    named = " ".join(words) in COUNTERS or (len(words) > 1 and words[-1] == "index")
    return counter or (named and bool(values) and all(is_integer(v) for v in values))


_ELECTRODE = r"(?:fp|af|fc|ft|cp|tp|po|f|c|t|p|o|a|m|n|i)(?:\d{1,2}|z)"
_CHANNEL_TOKEN = re.compile(rf"^{_ELECTRODE}(?:-{_ELECTRODE})?$", re.IGNORECASE)
CHANNEL_WORDS = frozenset({"chan", "chans", "channel", "channels", "electrode", "electrodes", "montage", "derivation",
                           "lead", "leads"})
"""Words naming a column of recording channels."""


def is_channel_column(name: str, values: list[str]) -> bool:
    """Whether a column lists recording channels (10-20 electrode names, bipolar pairs like ``Xx1-Yy2``, or
    lists of them): a value each row carries as written, never levels to define one by one. Single names
    (``O1``) count only under a name that says channels, since codes can look like them."""
    lists = [v.replace(",", " ").split() for v in values if v.strip()]
    if not lists or not all(_CHANNEL_TOKEN.match(t) for tokens in lists for t in tokens):
        return False
    named = bool(set(humanize(name).split()) & CHANNEL_WORDS)
    paired = sum(1 for tokens in lists if len(tokens) > 1 or "-" in tokens[0]) * 2 > len(lists)
    return named or paired


def detected_kind(name: str, values: list[str], *, overflow: bool = False, counter: bool = False,
                  counts: Mapping[str, int] | None = None) -> ColumnKind:
    """The kind of a column its sidecar entry does not settle, from its name and its distinct *values*
    (*overflow*: it had more than were counted; *counts*: rows per value, to tell markers from notes)."""
    if is_bookkeeping(name, values, counter):
        return "skip"
    if numbers_trials(name, values):
        return "value"  # Experimental-trial/#
    if not values or overflow or is_channel_column(name, values):
        return "value"
    if all(is_file_name(v) for v in values):
        return "value"  # stimulus files (one per subject, say): a Pathname/# value, never a question per file
    if all(is_integer(v) for v in values) and len(values) <= MAX_CODE_LEVELS and not is_magnitude(name):
        return "categorical"  # codes: response 1/2, condition 0/1/2
    if all(is_number(v) for v in values):
        return "value"
    if len(values) <= MAX_LEVELS:
        return "categorical"
    # Marker strings: no template holds "Trial Start: No.9", and few enough distinct ones to ask about.
    return "categorical" if counts is not None and is_marker_column(counts) else "value"


def is_marker_levels(counts: Mapping[str, int]) -> bool:
    """Whether a categorical column with these levels (value -> rows) is one only because it holds marker
    strings: its levels are described and annotated as markers (:mod:`bidsdata.markers`)."""
    return len(counts) > MAX_LEVELS and is_marker_column(counts)
