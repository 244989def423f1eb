"""hedtools' issues mapped back to the sidecar entry, events file, row and level they come from.

Both readers of hedtools' issues use these: :func:`bidsdata.sidecar.validate_sidecar` (the sidecar alone)
and :mod:`bidsdata.validation` (each events file with it). They live here, apart from both, so neither
imports the other's private helpers (no import circle).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from hed.errors import ErrorSeverity

from bidsdata import tsv

SIDECAR = "sidecar"
"""The ``source`` of an issue found in the sidecar itself rather than in an events file."""


@dataclass(frozen=True)
class SidecarIssue:
    """One hedtools issue, mapped back to where it comes from.

    ``source`` is :data:`SIDECAR` or an events file's path; ``column``/``level`` name the sidecar entry
    (for an events file: the column and that row's value), ``row`` the file line (header is line 1).
    An issue hedtools reports for a whole assembled row (e.g. a tag repeated by two columns) has no
    column; ``related`` then lists the row's (column, level) pairs whose HED holds the offending tag
    (level ``None`` for a value column).
    """

    source: str
    code: str
    message: str
    severity: str = "error"
    column: str | None = None
    level: str | None = None
    row: int | None = None
    hed: str | None = None
    related: tuple[tuple[str, str | None], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def severity(issue: dict[str, Any]) -> str:
    """``error`` or ``warning`` for one of hedtools' issue dicts (an issue without a severity is an error)."""
    return "error" if issue.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR else "warning"


def cell(rows: list[list[str]], header: list[str], row: int | None, column: str | None) -> str | None:
    """The value of *column* on file line *row* (hedtools counts file lines, the header being line 1)."""
    if row is None or column not in header:
        return None
    index = row - 2
    return rows[index][header.index(column)] if 0 <= index < len(rows) else None


def read_table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of an events file, as hedtools numbers them (the one events reader, :func:`.tsv.table`)."""
    return tsv.table(text)


def quoted(message: str) -> str | None:
    """The tag a row-level issue names only in its message (``Repeated tag - "X"``), else None."""
    m = re.search(r'"\(?([^",()]+)', message)
    return m.group(1) if m else None


def related(sidecar: dict[str, Any], header: list[str], rows: list[list[str]], row: int | None,
            source_tag: object) -> tuple[tuple[str, str | None], ...]:
    """The (column, level) pairs of a row whose HED holds *source_tag*'s base tag."""
    if row is None or source_tag is None:
        return ()
    base = str(source_tag).split("/")[0].strip("() ").lower()
    found: list[tuple[str, str | None]] = []
    for column in header:
        hed = sidecar.get(column, {}).get("HED") if isinstance(sidecar.get(column), dict) else None
        value = cell(rows, header, row, column)
        if isinstance(hed, dict) and value in hed and base in hed[value].lower():
            found.append((column, value))
        elif isinstance(hed, str) and base in hed.lower():
            found.append((column, None))
    return tuple(found)


def text_or_none(value: object) -> str | None:
    """*value* as text, None kept (hedtools' HED string context may be absent)."""
    return None if value is None else str(value)


__all__ = ["SIDECAR", "SidecarIssue", "cell", "quoted", "read_table", "related", "severity", "text_or_none"]
