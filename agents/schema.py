"""HED schema loading, once per process per version: the one home of HEDVersion parsing and loading.

A version is written as the HED specification writes ``HEDVersion``: a standard version (``"8.4.0"``),
a library partnered with its standard one (``"score_2.1.0"``), or a list of them where libraries may
carry a prefix (``["8.4.0", "sc:score_1.0.0"]``: the library's tags are then written ``sc:Tag``).
Where one string must hold a list (a form field, a command-line option, a stored column) the entries
are joined with commas: ``"8.4.0,sc:score_1.0.0"``.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hed.schema import HedSchema, HedSchemaGroup

logger = logging.getLogger(__name__)

DEFAULT_SCHEMA_VERSION = "8.4.0"
HedVersion = str | list[str]
_STANDARD_FILE = re.compile(r"^HED(\d+\.\d+\.\d+)\.xml$")
_LIBRARY_FILE = re.compile(r"^HED_([a-z]+)_(\d+\.\d+\.\d+)\.xml$")
# One HEDVersion entry: an optional prefix ("sc:"), an optional library name ("score_"), a version number.
_ENTRY = re.compile(r"^(?:(?P<prefix>[A-Za-z]+):)?(?:(?P<library>[a-z]+)_)?(?P<number>\d+\.\d+\.\d+)$")
_lock = threading.Lock()
MAX_ENTRY_CHARS = 64
"""The longest HEDVersion entry read: hedtools' own are under 30 (``sc:score_2.1.0``). A longer one is refused
before it becomes a file name, which the system would refuse (ENAMETOOLONG) past 255 bytes."""


class UnknownSchemaVersion(ValueError):
    """Raised for a schema version that hedtools does not ship, or a list of them it cannot combine."""

    def __init__(self, version: str, reason: str = "") -> None:
        self.version = version
        known = ", ".join((*available_versions(), *library_versions()))
        super().__init__(reason or f"unknown HED schema version {version!r}; available: {known}")


def _data_dir() -> Path:
    import hed

    return Path(hed.__file__).parent / "schema" / "schema_data"


def _ordered(versions: list[str]) -> tuple[str, ...]:
    return tuple(sorted(versions, key=lambda v: tuple(int(x) for x in v.rpartition("_")[2].split("."))))


@functools.cache
def available_versions() -> tuple[str, ...]:
    """The standard schema versions bundled with hedtools, oldest first."""
    return _ordered([m.group(1) for p in _data_dir().iterdir() if (m := _STANDARD_FILE.match(p.name))])


@functools.cache
def library_versions() -> tuple[str, ...]:
    """The library schemas bundled with hedtools (``"lang_1.1.0"``, ``"score_2.1.0"``), by library, oldest first."""
    found = [f"{m.group(1)}_{m.group(2)}" for p in _data_dir().iterdir() if (m := _LIBRARY_FILE.match(p.name))]
    libraries = sorted({v.partition("_")[0] for v in found})
    return tuple(v for name in libraries for v in _ordered([f for f in found if f.partition("_")[0] == name]))


def version_entries(version: HedVersion | None) -> tuple[str, ...]:
    """The entries of a HEDVersion (a string, a comma-joined string or a list); ``None`` is the default."""
    if version is None:
        return (DEFAULT_SCHEMA_VERSION,)
    if isinstance(version, str):
        parts = version.split(",")
    elif isinstance(version, list | tuple) and all(isinstance(v, str) for v in version):
        parts = [p for v in version for p in v.split(",")]
    else:
        raise UnknownSchemaVersion(repr(version), f"a HED schema version is a string or a list of them, "
                                                  f"not {version!r}")
    entries = tuple(p.strip() for p in parts if p.strip())
    if not entries:
        raise UnknownSchemaVersion("", "no HED schema version given")
    return entries


def canonical(version: HedVersion | None) -> str:
    """The one-string form of a HEDVersion: its entries joined with commas (``"8.4.0,sc:score_1.0.0"``)."""
    return ",".join(version_entries(version))


def as_hed_version(version: HedVersion | None) -> HedVersion:
    """The form ``dataset_description.json`` writes: a string for one entry, else a list."""
    entries = version_entries(version)
    return entries[0] if len(entries) == 1 else list(entries)


def prefixes(version: HedVersion | None) -> dict[str, str]:
    """Prefix (``"sc:"``, ``""`` for none) -> the library name it stands for (``""`` for the standard schema)."""
    found: dict[str, str] = {}
    for entry in version_entries(version):
        match = _ENTRY.match(entry)
        if match:
            prefix = f"{match['prefix']}:" if match["prefix"] else ""
            found.setdefault(prefix, match["library"] or "")
    return found


def _entry_file(entry: str) -> Path | None:
    if len(entry) > MAX_ENTRY_CHARS:
        raise UnknownSchemaVersion(entry, f"the HED schema version {entry[:20]!r}... is {len(entry):,} characters "
                                          f"long; a version (with its library and prefix) has at most "
                                          f"{MAX_ENTRY_CHARS}")
    match = _ENTRY.match(entry)
    if match is None:
        return None
    library, number = match["library"], match["number"]
    return _data_dir() / (f"HED_{library}_{number}.xml" if library else f"HED{number}.xml")


def check_version(version: HedVersion | None) -> str:
    """The canonical string of *version* if hedtools ships (and can combine) it, else raise
    :class:`UnknownSchemaVersion` with a one-line reason."""
    entries = version_entries(version)
    for entry in entries:
        path = _entry_file(entry)
        if path is None or not path.is_file():
            raise UnknownSchemaVersion(entry)
    key = ",".join(entries)
    if len(entries) > 1:
        try:
            _loaded(key)
        except UnknownSchemaVersion:
            raise
        except Exception as exc:  # hedtools raises HedFileError (and others) for entries it cannot combine
            reason = str(getattr(exc, "message", "") or exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UnknownSchemaVersion(key, f"HED schema versions {key!r} cannot be used together: {reason}") from None
    return key


@functools.cache
def _load(key: str) -> HedSchema | HedSchemaGroup:
    from hed.schema import load_schema_version

    logger.info("loading HED schema %s", key)
    entries = key.split(",")
    return load_schema_version(entries[0] if len(entries) == 1 else entries)


def _loaded(key: str) -> HedSchema | HedSchemaGroup:
    # Loading is slow and not re-entrant-safe; one thread loads, others wait.
    with _lock:
        return _load(key)


def get_schema(version: HedVersion | None = DEFAULT_SCHEMA_VERSION) -> HedSchema | HedSchemaGroup:
    """The loaded schema (a group when the version lists prefixed libraries) for *version*, shared by every
    caller in this process."""
    return _loaded(check_version(version))
