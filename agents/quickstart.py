"""hedtools imported in a fraction of a second instead of about 2.5 s.

hedtools pluralises tag names with ``inflect``, whose functions are wrapped in typeguard's
``@typechecked``; typeguard instruments each one as the module is imported by parsing the whole of
``inflect``'s source again (over a hundred parses), which made every process that imports hedtools (each
command, worker and server start) wait about 2.3 s. The checks only guard ``inflect``'s own argument
types, which hedtools always satisfies, so ``inflect`` is imported with the decorator as a no-op: what
``python -O`` does for typeguard, limited to this one import.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


def _unchecked(target: Any = None, **_options: Any) -> Any:
    # typeguard's decorator can be used bare or with options: both shapes return the target unchanged.
    if target is None:
        return lambda function: function
    return target


def import_inflect_unchecked() -> None:
    """Import ``inflect`` (once per process) with typeguard's ``@typechecked`` a no-op; later imports reuse it."""
    if "inflect" in sys.modules:
        return
    try:
        import typeguard
    except ImportError:  # pragma: no cover - inflect without typeguard needs nothing
        return
    original: Callable[..., Any] = typeguard.typechecked
    typeguard.typechecked = _unchecked
    try:
        import inflect  # noqa: F401 - imported here so hedtools finds it ready
    finally:
        typeguard.typechecked = original
