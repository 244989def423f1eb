"""Cells a spreadsheet program may open, made inert: the one formula-injection guard of every export.

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or
carriage return before one) as a formula, so a description such as ``=HYPERLINK(...)`` in a CSV would
run when a reviewer opens it. Such a cell is written with a leading apostrophe, which the programs show
as text; a plain number (``-1``, ``+2.5``) is no formula and stays as it is.
"""

from __future__ import annotations

import re

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise(value: str) -> str:
    """*value* made inert for spreadsheets: a leading formula character is quoted away."""
    if value.startswith(FORMULA_PREFIXES) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value
