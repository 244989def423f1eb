"""Cells a spreadsheet program may open, made inert: the one guard of every table the app writes.

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab,
carriage return, or an invisible character such as a byte order mark before one) as a formula, so a level
named ``=HYPERLINK(...)`` in a downloaded table would run when a reviewer opens it. As OWASP's CSV-injection
advice says, such a cell is written with a leading
apostrophe, which the programs show as text; a plain number (``-1``, ``+2.5``, ``-1e3``) is no formula and
stays as it is, so it still reads as a number. A line break or tab inside a cell becomes a space: a bare
CR starts a new row in some readers, a tab a new column in a TSV, and either would put the rest of the
cell at the start of a row or a column, beyond the guard.

Every writer goes through :func:`neutralise` (the 4-column sidecar spreadsheet, the questions table, the
CSV exports); :func:`restore` undoes the apostrophe on a table handed back, so a level named ``-x`` is
found again.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@")
"""Characters that make a spreadsheet program read a cell as a formula (after any leading white space)."""
_BREAKS = re.compile(r"[\t\n\r\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""A tab, NUL, or anything a reader may take for a line break (``str.splitlines`` breaks at each of these)."""
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _is_formula(text: str) -> bool:
    """Whether *text*, apostrophes stripped, opens as a formula: a break first, or a formula character first
    after white space and invisible format characters, and it is no plain number."""
    bare = text.lstrip("'")
    if bare[:1] and _BREAKS.match(bare):
        return True
    stripped = _unseen_start(bare).strip()
    return stripped.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(stripped)


def _unseen_start(text: str) -> str:
    """*text* from its first character that shows: a byte order mark (U+FEFF), a zero-width space or joiner
    (format characters, Unicode's Cf) or white space before ``=`` shows nothing, and a spreadsheet program may
    drop it and run the formula after it."""
    start = 0
    while start < len(text) and (text[start].isspace() or unicodedata.category(text[start]) == "Cf"):
        start += 1
    return text[start:]


def neutralise(value: object) -> str:
    """*value* as an inert cell: a formula gets a leading apostrophe, breaks and tabs become spaces.

    A value that already starts with apostrophes before a formula gets one more, so :func:`restore`
    gives back exactly what was written.
    """
    text = _text(value)
    if _is_formula(text):
        text = "'" + text
    return _BREAKS.sub(" ", text)


def restore(cell: str) -> str:
    """A cell read back from a table :func:`neutralise` wrote: the apostrophe it added taken off."""
    return cell[1:] if cell.startswith("'") and _is_formula(cell[1:]) else cell


def safe_row(values: Iterable[object]) -> list[str]:
    """Every value of a row through :func:`neutralise`."""
    return [neutralise(value) for value in values]


def table_text(rows: Iterable[Iterable[object]], *, delimiter: str = "\t") -> str:
    """The rows (the header first) as one table text, every cell neutralised, lines ended by ``\\n``."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerows(safe_row(row) for row in rows)
    return out.getvalue()


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value if isinstance(value, str) else str(value)
