"""Units read from the data when a column does not declare them.

A response time of 1095 is not 1095 seconds: a column of durations whose typical value is far beyond what a
trial lasts in seconds was written in milliseconds. The rule is the magnitude only, never the column's name.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable

from bidsdata.numbers import is_number

# A trial's times in seconds are rarely above a minute; in milliseconds they are rarely below 50.
_MS_ABOVE = 50.0


def time_unit_from_values(values: Iterable[str], default: str = "s") -> str:
    """``ms`` when the typical (median) absolute value of *values* is above 50, else *default*.

    Cells that are not numbers (``n/a``, text) are skipped; with no number at all *default* is returned."""
    numbers = [abs(float(v)) for v in values if isinstance(v, str) and is_number(v.strip())]
    numbers = [n for n in numbers if math.isfinite(n)]  # "nan" reads as a number
    if not numbers:
        return default
    return "ms" if statistics.median(numbers) > _MS_ABOVE else default


__all__ = ["time_unit_from_values"]
