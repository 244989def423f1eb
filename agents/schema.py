"""HED schema loading, once per process per version."""

from __future__ import annotations

import functools
import logging
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hed.schema import HedSchema

logger = logging.getLogger(__name__)

DEFAULT_SCHEMA_VERSION = "8.4.0"
_STANDARD_FILE = re.compile(r"^HED(\d+\.\d+\.\d+)\.xml$")
_lock = threading.Lock()


class UnknownSchemaVersion(ValueError):
    """Raised for a schema version that hedtools does not ship."""

    def __init__(self, version: str) -> None:
        self.version = version
        known = ", ".join(available_versions())
        super().__init__(f"unknown HED schema version {version!r}; available: {known}")


@functools.cache
def available_versions() -> tuple[str, ...]:
    """The standard schema versions bundled with hedtools, oldest first."""
    import hed

    data_dir = Path(hed.__file__).parent / "schema" / "schema_data"
    found = [m.group(1) for p in data_dir.iterdir() if (m := _STANDARD_FILE.match(p.name))]
    return tuple(sorted(found, key=lambda v: tuple(int(x) for x in v.split("."))))


def check_version(version: str) -> str:
    """Return *version* if hedtools ships it, else raise :class:`UnknownSchemaVersion`."""
    if version not in available_versions():
        raise UnknownSchemaVersion(version)
    return version


@functools.cache
def _load(version: str) -> HedSchema:
    from hed.schema import load_schema_version

    logger.info("loading HED schema %s", version)
    return load_schema_version(version)


def get_schema(version: str = DEFAULT_SCHEMA_VERSION) -> HedSchema:
    """The loaded schema for *version*, shared by every caller in this process."""
    check_version(version)
    # Loading is slow and not re-entrant-safe; one thread loads, others wait.
    with _lock:
        return _load(version)
