"""The shapes of a task's HED that several modules pass around, each named once for what it means.

Both are column -> (level -> HED) for a categorical column, or column -> its ``#`` template for a value column;
they differ in who may change them, so they carry two names (five modules called either ``Annotations``):

- :data:`LevelAnnotations`: the levels' own annotations as the caller hands them in (the agents' or a
  reviewer's HED); read, never written, so a caller's mapping is never changed behind its back.
- :data:`ComposedHed`: the HED the composition passes rewrite on their :class:`~bidsdata.composition.state.Draft`
  and hand back in a ``Composition``; the sidecar's HED per column.

The schema version type is :data:`agents.schema.HedVersion` (``None`` where a function falls back to a default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LevelAnnotations = Mapping[str, Mapping[str, str] | str]
ComposedHed = dict[str, Any]

__all__ = ["ComposedHed", "LevelAnnotations"]
