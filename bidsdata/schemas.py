"""Load (once) and apply the HED schema a dataset declares."""

from __future__ import annotations

import functools
import logging
import threading
from typing import TYPE_CHECKING

from agents.schema import DEFAULT_SCHEMA_VERSION

if TYPE_CHECKING:
    from hed.schema import HedSchema, HedSchemaGroup

logger = logging.getLogger(__name__)

_lock = threading.Lock()


def version_key(version: str | list[str] | None) -> tuple[str, ...]:
    """A hashable form of a HEDVersion; ``None`` is the project's default version."""
    if version is None:
        return (DEFAULT_SCHEMA_VERSION,)
    return (version,) if isinstance(version, str) else tuple(version)


@functools.cache
def _load(key: tuple[str, ...]) -> HedSchema | HedSchemaGroup:
    from hed.schema import load_schema_version

    logger.info("loading HED schema %s", key)
    return load_schema_version(key[0] if len(key) == 1 else list(key))


def load_schema(version: str | list[str] | None) -> HedSchema | HedSchemaGroup:
    """The hedtools schema (or schema group) for a HEDVersion, loaded once per process."""
    with _lock:  # loading parses XML for a second or so; never twice at once
        return _load(version_key(version))


def validate_hed_string(hed: str, version: str | list[str] | None, *, allow_placeholders: bool = False) -> list[dict]:
    """hedtools' issues (errors only) for one HED string, e.g. a value column's ``#`` template."""
    from hed.errors import ErrorSeverity
    from hed.models import HedString
    from hed.validator import HedValidator

    schema = load_schema(version)
    issues = HedValidator(schema).validate(HedString(hed, schema), allow_placeholders=allow_placeholders)
    return [i for i in issues if i.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR]
