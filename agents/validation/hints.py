"""Remediation hints per hedtools error code, kept as data beside the agent."""

from __future__ import annotations

import functools
import json
from pathlib import Path

_GENERIC = "Fix the annotation so that it uses only valid HED tags and syntax."


@functools.cache
def _hints() -> dict[str, str]:
    return json.loads((Path(__file__).parent / "hints.json").read_text(encoding="utf-8"))


def hint_for(code: str) -> str:
    """The remediation hint for a hedtools error code (a generic one for unknown codes)."""
    return _hints().get(code, _GENERIC)
