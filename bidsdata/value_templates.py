"""Propose a ``#`` HED template for a value column from its name, description, units and sample values.

General HED conventions only (no dataset-specific answers): files are ``Pathname/#`` (with ``Image`` or
``Sound`` when the files are pictures or sounds), response times are a ``Delay`` of the participant's
response, trial and block numbers are ``Experimental-trial``/``Time-block``, counts ``Item-count``, codes
``ID``; anything else is a labelled ``Parameter-value``. Each candidate is validated with hedtools
(placeholders allowed) against the dataset's schema; the first valid one is returned.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from agents import conventions
from bidsdata.inventory import humanize, is_number
from bidsdata.numbers import is_integer
from bidsdata.schemas import validate_hed_string
from bidsdata.units import time_unit_from_values

logger = logging.getLogger(__name__)

IMAGE_EXTENSIONS = frozenset({".bmp", ".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".svg", ".webp"})
SOUND_EXTENSIONS = frozenset({".wav", ".mp3", ".flac", ".ogg", ".aiff", ".aif"})
VIDEO_EXTENSIONS = frozenset({".mp4", ".avi", ".mov", ".mkv", ".webm", ".mpg", ".mpeg"})
MAX_SAMPLES = 50
"""Distinct sample values tried in a candidate template."""
_FILE_WORDS = conventions.FILE | {"img", "image", "picture", "wav"}
_IMAGE_WORDS = {"image", "img", "picture", "photo", "bitmap"}
_SOUND_WORDS = {"sound", "audio", "tone", "wav"}


def _label(name: str) -> str:
    """A column name as a HED label value (letters, digits, - and _)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "value"


def _unit(units: str | None, unit_class: str) -> str | None:
    """*units* as the schema spells it ("msec" -> "ms") when it is a unit of *unit_class*, else None."""
    found = conventions.unit(units or "")
    return found[0] if found and found[1] == unit_class else None


def _time_unit(units: str | None, sample_values: Iterable[str] = ()) -> str:
    # Undeclared, the unit is read from the values' magnitude (a response time of 1095 is in ms).
    return _unit(units, "timeUnits") or time_unit_from_values(sample_values)


def _counts_items(description: str, sample_values: list[str]) -> bool:
    """Whole numbers counting things back from this one ("how many pictures before this one it was shown"): the
    description names the things (a plural noun) and where the count runs (before, since...), nothing in time."""
    said = conventions.words(description)
    plural = any(conventions.is_plural_noun(w) for w in said)
    numbers = [v for v in sample_values if v not in ("", "n/a")]
    return (plural and bool(set(said) & {"before", "since", "ago", "previous", "previously", "intervening"})
            and not conventions.said(said, {"second", "millisecond", "time", "ms", "s"})
            and bool(numbers) and all(is_integer(v) for v in numbers))


def _extensions(values: Iterable[str]) -> set[str]:
    return {PurePosixPath(v).suffix.lower() for v in values if "." in v}


@dataclass(frozen=True)
class _Column:
    """What the conventions read of a value column: its words (abbreviations spelled out), text and samples."""

    name: str
    description: str
    units: str | None
    sample_values: list[str]

    @property
    def words(self) -> set[str]:
        # Abbreviations spelled out: "resp time" is a response time.
        return {w for raw in humanize(self.name).split() for w in conventions.ABBREVIATIONS.get(raw, raw).split()}

    @property
    def text(self) -> str:
        return f"{humanize(self.name)} {self.description.lower()}"

    @property
    def extensions(self) -> set[str]:
        return _extensions(self.sample_values)

    @property
    def label(self) -> str:
        return _label(self.name)

    @property
    def unit(self) -> str:
        return (self.units or "").strip()


def _files(col: _Column) -> list[str]:
    """File names are a ``Pathname``, with ``Image``/``Sound``/``Movie`` when the files are such."""
    words, extensions = col.words, col.extensions
    if not (words & _FILE_WORDS or extensions & (IMAGE_EXTENSIONS | SOUND_EXTENSIONS | VIDEO_EXTENSIONS)):
        return []
    found = []
    if extensions & IMAGE_EXTENSIONS or words & _IMAGE_WORDS:
        found.append("(Image, Pathname/#)")
    elif extensions & SOUND_EXTENSIONS or words & _SOUND_WORDS:
        found.append("(Sound, Pathname/#)")
    elif extensions & VIDEO_EXTENSIONS:
        found.append("(Movie, Pathname/#)")
    return [*found, "Pathname/#"]


def _response_time(col: _Column) -> list[str]:
    """A response time is a ``Delay`` of the participant's response (else a time interval)."""
    words = col.words
    response = "rt" in words or (bool(words & {"response", "reaction"}) and bool(words & {"time", "latency"}))
    if not (response or re.search(r"\b(response|reaction) (time|latency)\b", col.text)):
        return []
    time_unit = _time_unit(col.units, col.sample_values)
    return [f"(Delay/# {time_unit}, (Agent-action, Participant-response))", f"Time-interval/# {time_unit}"]


def _interval(col: _Column) -> list[str]:
    """An interval in declared time units is a ``Time-interval``."""
    time_unit = _unit(col.unit, "timeUnits")
    if not (col.words & conventions.INTERVAL and time_unit):
        return []
    return [f"Time-interval/# {time_unit}", "Time-interval/# s"]


def _items_back(col: _Column) -> list[str]:
    """Whole numbers counting things back from this one (no units) are an ``Item-interval``."""
    return ["Item-interval/#"] if not col.unit and _counts_items(col.description, col.sample_values) else []


def _trial_or_block(col: _Column) -> list[str]:
    """Trial and block numbers are ``Experimental-trial``/``Time-block``."""
    return [tag for word, tag in (("trial", "Experimental-trial/#"), ("block", "Time-block/#")) if word in col.words]


def _count(col: _Column) -> list[str]:
    """Counts (not of trials or blocks) are a labelled ``Item-count``."""
    words = col.words
    if words & (conventions.COUNT | {"number", "num", "nr", "n"}) and not words & {"trial", "block"}:
        return [f"(Label/{col.label}, Item-count/#)"]
    return []


def _frequency(col: _Column) -> list[str]:
    """Frequencies are a ``Frequency`` (in hertz unless declared)."""
    if not col.words & conventions.FREQUENCY:
        return []
    return [f"Frequency/# {_unit(col.unit, 'frequencyUnits') or 'Hz'}", "Frequency/#"]


def _age(col: _Column) -> list[str]:
    """Ages are an ``Age`` (with the declared unit)."""
    return [f"Age/# {col.unit}" if col.unit else "Age/#", "Age/#"] if "age" in col.words else []


def _identifier(col: _Column) -> list[str]:
    """An identifier named as one, or described as one ("the picture's ID"): short names rarely say it in full."""
    if col.words & conventions.IDENTIFIER or set(conventions.words(col.description)) & {"id", "identifier"}:
        return [f"(Parameter-label/{col.label}, ID/#)"]
    return []


def _measure(col: _Column) -> list[str]:
    """Numbers with declared units are a labelled ``Parameter-value`` in those units."""
    unit = col.unit
    if not (unit and all(is_number(v) for v in col.sample_values if v not in ("", "n/a"))):
        return []
    spelled = conventions.unit(unit)
    return [f"(Parameter-label/{col.label}, Parameter-value/# {spelled[0] if spelled else unit})"]


def _anything(col: _Column) -> list[str]:
    """Anything else is a labelled ``Parameter-value``."""
    return [f"(Parameter-label/{col.label}, Parameter-value/#)"]


_CONVENTIONS = (_files, _response_time, _interval, _items_back, _trial_or_block, _count, _frequency, _age,
                _identifier, _measure, _anything)
"""The conventions in the order their candidates are tried: adding one is a function and its place here."""


def _candidates(name: str, description: str, units: str | None, sample_values: list[str]) -> list[str]:
    col = _Column(name, description, units, sample_values)
    return list(dict.fromkeys(template for convention in _CONVENTIONS for template in convention(col)))


def values_not_fitting(template: str, values: Iterable[str], hed_version: str | list[str] | None) -> list[str]:
    """The values that make *template* invalid once put in place of ``#`` (``n/a`` rows get no HED).

    HED text values cannot hold commas, brackets or braces, and a unit-bearing tag needs numbers, so
    a template can be valid on its own and still fail on the data.
    """
    bad = []
    for value in dict.fromkeys(str(v) for v in values):
        if value.strip() in ("", "n/a"):
            continue
        if validate_hed_string(template.replace("#", value), hed_version):
            bad.append(value)
    return bad


def propose_value_template(
    name: str,
    *,
    description: str = "",
    units: str | None = None,
    sample_values: Iterable[str] = (),
    hed_version: str | list[str] | None = None,
) -> str:
    """A valid ``#`` template for value column *name* under *hed_version* (``None``: the default schema).

    *sample_values* (a few distinct values of the column) tell image from sound files and are tried in
    the template: the first candidate that every sample fits wins, else the one most samples fit.
    The result always validates with placeholders allowed; check :func:`values_not_fitting` to know
    whether the data fits it (a text column with commas fits no template at all).
    """
    samples = list(dict.fromkeys(str(v) for v in sample_values))[:MAX_SAMPLES]
    best: tuple[int, str] | None = None
    for template in _candidates(name, description or "", units, samples):
        if validate_hed_string(template, hed_version, allow_placeholders=True):
            logger.debug("template candidate %s for %s does not validate", template, name)
            continue
        misfits = len(values_not_fitting(template, samples, hed_version))
        if misfits == 0:
            logger.debug("template for %s: %s", name, template)
            return template
        if best is None or misfits < best[0]:
            best = (misfits, template)
    # Parameter-value exists in every HED 8 schema; reaching here means a strange column name.
    return best[1] if best else "Parameter-value/#"
