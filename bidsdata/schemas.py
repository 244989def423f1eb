"""Load (once) and apply the HED schema a dataset declares."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agents.hedstring import MAX_GROUP_DEPTH, group_depth
from agents.schema import get_schema, version_entries

if TYPE_CHECKING:
    from hed.schema import HedSchema, HedSchemaGroup

logger = logging.getLogger(__name__)


def version_key(version: str | list[str] | None) -> tuple[str, ...]:
    """A hashable form of a HEDVersion; ``None`` is the project's default version."""
    return version_entries(version)


def load_schema(version: str | list[str] | None) -> HedSchema | HedSchemaGroup:
    """The hedtools schema (or schema group) for a HEDVersion, loaded once per process by agents/schema.py
    (the one loader, so the agents and the dataset checks share one parsed schema)."""
    return get_schema(version)


def validate_hed_string(hed: str, version: str | list[str] | None, *, allow_placeholders: bool = False) -> list[dict]:
    """hedtools' issues (errors only) for one HED string, e.g. a value column's ``#`` template."""
    from hed.errors import ErrorSeverity
    from hed.models import HedString
    from hed.validator import HedValidator

    if (depth := group_depth(hed)) > MAX_GROUP_DEPTH:  # hedtools would recurse past Python's limit
        return [{"code": "GROUP_TOO_DEEP", "severity": ErrorSeverity.ERROR,
                 "message": f"HED groups nest {depth:,} deep, more than the {MAX_GROUP_DEPTH} allowed"}]
    schema = load_schema(version)
    issues = HedValidator(schema).validate(HedString(hed, schema), allow_placeholders=allow_placeholders)
    return [i for i in issues if i.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR]
