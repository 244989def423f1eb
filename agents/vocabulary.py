"""An index of the HED schema's vocabulary: tag lookup, fuzzy matching and prompt slices.

Built once per process per schema version from hedtools' loaded schema, so every agent
agrees on which tags exist, what they take as values and which units they accept.
"""

from __future__ import annotations

import difflib
import logging
import math
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.schema import DEFAULT_SCHEMA_VERSION, check_version, get_schema

if TYPE_CHECKING:
    from hed.schema import HedSchema, HedSchemaGroup

logger = logging.getLogger(__name__)

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[a-z0-9]+")

LIBRARY_CANDIDATES = 8  # library tags a prompt's slice offers for one text
_MIN_DESCRIPTION_WORD = 4  # shorter words of a description ("the", "of") say nothing about the tag
_DESCRIPTION_WEIGHT = 0.5  # a description's words count for less than the name's

# Tags an annotation of almost any event may need; offered to the LLM whatever the text says.
ALWAYS_USEFUL: tuple[str, ...] = (
    "Sensory-event",
    "Agent-action",
    "Experiment-control",
    "Experiment-structure",
    "Experimental-stimulus",
    "Participant-response",
    "Experiment-participant",
    "Visual-presentation",
    "Auditory-presentation",
    "Cue",
    "Feedback",
    "Instructional",
    "Target",
    "Non-target",
    "Label",
)


@dataclass(frozen=True)
class TagInfo:
    name: str
    long_name: str
    description: str
    parent: str | None
    takes_value: bool
    value_classes: tuple[str, ...]
    unit_classes: tuple[str, ...]
    units: tuple[str, ...]
    default_unit: str | None
    extension_allowed: bool
    library: str = ""  # the library schema the tag comes from ("score"); "" for the standard schema
    prefix: str = ""  # the HEDVersion prefix its names carry ("sc:"), "" for none

    def lineage(self) -> tuple[str, ...]:
        """Short names of the ancestors (without the prefix), root first (the long name's path minus the tag)."""
        return tuple(self.long_name.removeprefix(self.prefix).split("/")[:-1])

    @property
    def bare_name(self) -> str:
        """The short name without its prefix: what the tag's words are read from."""
        return self.name.removeprefix(self.prefix)


def name_words(name: str) -> tuple[str, ...]:
    """Lower-case words of a tag name: hyphens split, CamelCase (CSS colours) split."""
    return tuple(_WORD.findall(_CAMEL.sub(" ", name).lower()))


class Vocabulary:
    """All tags of one schema version, with the lookups the agents need."""

    def __init__(self, schema: HedSchema | HedSchemaGroup, version: str) -> None:
        self.version = version
        self._tags: dict[str, TagInfo] = {}  # lower short name -> info
        self._by_long: dict[str, TagInfo] = {}  # lower long name -> info
        self._deprecated: set[str] = set()
        self._units: dict[str, frozenset[str]] = {}  # unit class -> every accepted spelling
        self._words: dict[str, list[str]] = {}  # name word -> lower short names containing it
        # Library tags by the words of their names and of the schema's descriptions of them: a library's
        # names are clinical terms a description often paraphrases, so the descriptions are searched too.
        self._library_words: dict[str, dict[str, float]] = {}  # word -> {lower short name: weight}
        self._build(schema)

    # --- construction -------------------------------------------------------------------
    def _build(self, group: HedSchema | HedSchemaGroup) -> None:
        # A version listing prefixed libraries loads as a group: one schema per prefix, whose tags are
        # written with it ("sc:Tag"); a partnered library is one schema whose own tags say inLibrary.
        for prefix in group.valid_prefixes:
            schema = group.schema_for_namespace(prefix)
            for uc_name, uc in schema.unit_classes.items():
                derived = getattr(uc, "derivative_units", None) or uc.units
                self._units[uc_name] = self._units.get(uc_name, frozenset()) | frozenset(derived)
            for entry in schema.tags.values():
                if entry.name.endswith("#"):
                    continue
                info = self._make_info(schema, entry, prefix)
                key = info.name.lower()
                self._tags[key] = info
                self._by_long[info.long_name.lower()] = info
                if entry.has_attribute("deprecatedFrom"):
                    self._deprecated.add(key)
                    continue
                for word in set(name_words(info.bare_name)):
                    self._words.setdefault(word, []).append(key)
                if info.library:
                    self._index_library_tag(key, info)

    def _index_library_tag(self, key: str, info: TagInfo) -> None:
        described = {w for w in _WORD.findall(info.description.lower()) if len(w) >= _MIN_DESCRIPTION_WORD}
        named = set(name_words(info.bare_name))
        for word in described - named:
            self._library_words.setdefault(word, {})[key] = _DESCRIPTION_WEIGHT / max(len(described), 1)
        for word in named:
            self._library_words.setdefault(word, {})[key] = 1.0 / len(named)

    @staticmethod
    def _make_info(schema: HedSchema, entry: object, prefix: str = "") -> TagInfo:
        child = entry.takes_value_child_entry
        unit_classes: tuple[str, ...] = ()
        value_classes: tuple[str, ...] = ()
        units: list[str] = []
        default_unit = None
        if child is not None:
            unit_classes = tuple(child.unit_classes)
            value_classes = tuple(child.value_classes)
            for uc in child.unit_classes.values():
                units.extend(uc.units)
                default_unit = default_unit or uc.attributes.get("defaultUnits")
        parent = entry.parent
        # A standalone (unpartnered) library has no inLibrary marks: all of its tags are the library's.
        library = entry.attributes.get("inLibrary") or ("" if schema.with_standard or not schema.library
                                                        else schema.library)
        return TagInfo(
            name=prefix + entry.short_tag_name,
            long_name=prefix + entry.long_tag_name,
            description=entry.description or "",
            parent=prefix + parent.short_tag_name if parent is not None else None,
            takes_value=child is not None,
            value_classes=value_classes,
            unit_classes=unit_classes,
            units=tuple(units),
            default_unit=default_unit,
            # Value-taking tags cannot be extended: the child slot is the value.
            extension_allowed=bool(entry.has_attribute("extensionAllowed")) and child is None,
            library=str(library or ""),
            prefix=prefix,
        )

    # --- lookups ------------------------------------------------------------------------
    def get(self, name: str) -> TagInfo | None:
        """The tag named by a short name, a (partial) long form, or a valued form like ``Frequency/5 Hz``."""
        text = name.strip().strip("/")
        if not text:
            return None
        lowered = text.lower()
        if "/" not in lowered:
            return self._tags.get(lowered)
        if lowered in self._by_long:
            return self._by_long[lowered]
        parts = lowered.split("/")
        prefix = ""
        if ":" in parts[0]:  # "sc:Artifact/Biological-artifact": the prefix names every part's namespace
            head, _, parts[0] = parts[0].rpartition(":")
            prefix = head + ":"
        for i in range(len(parts), 0, -1):
            info = self._tags.get(prefix + parts[i - 1])
            if info is None or not info.long_name.lower().endswith("/".join(parts[:i])):
                continue
            rest = parts[i:]
            if not rest or info.takes_value:
                return info
            return None  # an extension of a known tag is not itself a tag
        return None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def all(self) -> list[TagInfo]:
        return list(self._tags.values())

    def is_deprecated(self, name: str) -> bool:
        info = self.get(name)
        return info is not None and info.name.lower() in self._deprecated

    def is_under(self, name: str, ancestor: str) -> bool:
        """True if *name* is *ancestor* or one of its descendants."""
        info = self.get(name)
        if info is None:
            return False
        wanted = ancestor.lower()
        return info.name.lower() == wanted or wanted in (a.lower() for a in info.lineage())

    def unit_spelling(self, tag: str, unit: str) -> str | None:
        """*unit* as *tag* accepts it (exact spelling first, then case-insensitive), else None."""
        info = self.get(tag)
        if info is None:
            return None
        accepted = [u for uc in info.unit_classes for u in self._units.get(uc, ())]
        if unit in accepted:
            return unit
        lowered = [u for u in accepted if u.lower() == unit.lower()]
        # Case matters for SI symbols (ms vs Ms), so only fall back when unambiguous.
        return lowered[0] if len(lowered) == 1 else None

    # --- fuzzy matching -----------------------------------------------------------------
    def closest(self, name: str, limit: int = 5) -> list[str]:
        """Valid tag names closest to a misspelt or invented one, best first."""
        last = name.strip().strip("/").split("/")[-1] if name.strip() else ""
        if not last:
            return []
        exact = self.get(name) or self._tags.get(last.lower())
        if exact is not None and exact.name.lower() not in self._deprecated:
            return [exact.name]
        query = last.lower()
        words = [w for w in name_words(last) if len(w) > 1]
        scores: dict[str, float] = {}
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(query)
        for key in self._tags:
            if key in self._deprecated:
                continue
            matcher.set_seq1(key)
            if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
                continue
            scores[key] = matcher.ratio()
        # Invented compounds ("RedColor", "Blorp-tag") often contain a real tag's words.
        for word in words:
            for key in self._words.get(word, ()):
                info_words = name_words(self._tags[key].name)
                overlap = len(set(words) & set(info_words)) / len(set(words) | set(info_words))
                scores[key] = max(scores.get(key, 0.0), 0.55 + 0.45 * overlap)
        ranked = sorted(((s, k) for k, s in scores.items() if s >= 0.6), key=lambda p: (-p[0], p[1]))
        return [self._tags[k].name for _, k in ranked[:limit]]

    def candidates(self, text: str, limit: int = 40, first: Iterable[str] = ()) -> list[TagInfo]:
        """Tags most relevant to a description: *first* (a lexicon's hits), the event basics, then word matches."""
        chosen: dict[str, TagInfo] = {}

        def add(names: Iterable[str]) -> None:
            for n in names:
                info = self.get(n)
                if info is not None and info.name.lower() not in self._deprecated:
                    chosen.setdefault(info.name.lower(), info)

        add(first)
        add(self.library_candidates(text))
        add(ALWAYS_USEFUL)
        scored: dict[str, float] = {}
        for word in set(_WORD.findall(text.lower())):
            if len(word) < 3:
                continue
            for key in self._words.get(word, ()):
                scored[key] = scored.get(key, 0.0) + 1.0 / len(name_words(self._tags[key].name))
        for key, _ in sorted(scored.items(), key=lambda p: (-p[1], p[0])):
            add([key])
        return list(chosen.values())[:limit]


    def library_candidates(self, text: str, limit: int = LIBRARY_CANDIDATES) -> list[str]:
        """Library tags whose names (first) and descriptions share words with *text*, best first."""
        scored: dict[str, float] = {}
        for word in set(_WORD.findall(text.lower())):
            found = self._library_words.get(word, {})
            rarity = 1.0 / (1.0 + math.log(len(found))) if found else 0.0  # "recording" says less than "blink"
            for key, weight in found.items():
                scored[key] = scored.get(key, 0.0) + weight * rarity
        ranked = sorted(((s, k) for k, s in scored.items() if k not in self._deprecated), key=lambda p: (-p[0], p[1]))
        return [self._tags[k].name for _, k in ranked[:limit]]


_cache: dict[str, Vocabulary] = {}
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget the vocabularies built: the next :func:`get_vocabulary` of each version builds it again (for tests
    that watch where and how often one is built)."""
    with _lock:
        _cache.clear()


def get_vocabulary(version: str | list[str] = DEFAULT_SCHEMA_VERSION) -> Vocabulary:
    """The vocabulary of *version* (a HEDVersion, libraries included), built once per process and shared."""
    version = check_version(version)
    vocab = _cache.get(version)
    if vocab is not None:
        return vocab
    schema = get_schema(version)
    with _lock:
        vocab = _cache.get(version)
        if vocab is None:
            started = time.perf_counter()
            vocab = Vocabulary(schema, version)
            _cache[version] = vocab
            logger.info("built HED vocabulary %s in %.0f ms", version, 1000 * (time.perf_counter() - started))
    return vocab
