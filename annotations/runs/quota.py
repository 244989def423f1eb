"""One per-user run quota (``HEDIT_RUN_RATE``, default 60/hour) for every way a run starts.

The annotate form, Re-run, the REST API and dataset jobs all call :func:`check_run_quota`
before they store a run.  Runs are counted in the database over a sliding window, so every
web process and worker sees the same count.  ``HEDIT_RUN_RATE=none`` turns the quota off.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from annotations.errors import RequestError
from annotations.models import AnnotationSession

_PERIODS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600,
            "d": 86400, "day": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([a-z]+?)s?\s*$")


@dataclass(frozen=True)
class RunRate:
    limit: int
    seconds: int

    @property
    def label(self) -> str:
        names = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}
        unit = names.get(self.seconds) or f"{self.seconds} seconds"
        return f"{self.limit} per {unit}"


class RunQuotaExceeded(RequestError):
    """Starting *count* more runs would pass the user's quota; *retry_after* is in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def parse_rate(rate: str | None, setting: str = "HEDIT_RUN_RATE") -> RunRate | None:
    """``"60/hour"``, ``"10/5m"``, ``"1000/day"``; None for ``"none"`` or empty (no limit)."""
    text = (rate or "").strip().lower()
    if text in {"", "none", "off", "0"}:
        return None
    match = _RATE.match(text)
    if not match or match.group(3) not in _PERIODS:
        raise ImproperlyConfigured(f"{setting} must look like 60/hour or 10/5m, not {rate!r}")
    multiple = int(match.group(2) or 1)
    return RunRate(limit=int(match.group(1)), seconds=multiple * _PERIODS[match.group(3)])


def run_rate() -> RunRate | None:
    return parse_rate(getattr(settings, "HEDIT_RUN_RATE", "60/hour"))


def _wait_text(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


def check_run_quota(user: Any, count: int = 1) -> None:
    """Raise :class:`RunQuotaExceeded` when *user* may not start *count* more runs now.

    Runs without a user (the command line) are not counted.  A dataset job passes the number
    of runs it is about to start.
    """
    rate = run_rate()
    if rate is None or user is None or not getattr(user, "is_authenticated", False):
        return
    since = timezone.now() - timedelta(seconds=rate.seconds)
    # Dataset levels have their own quota (annotations.datasets.services.check_level_quota).
    recent = AnnotationSession.objects.filter(user=user, created_at__gte=since, dataset_level__isnull=True)
    used = recent.count()
    if used + count <= rate.limit:
        return
    # The wait until enough of the window's runs have aged out to make room for *count*.
    free_after = used + count - rate.limit
    times = list(recent.order_by("created_at").values_list("created_at", flat=True)[:free_after])
    if count > rate.limit or not times:
        raise RunQuotaExceeded(f"{count} runs are more than the limit of {rate.label} (HEDIT_RUN_RATE).",
                               retry_after=rate.seconds)
    wait = max(1, math.ceil((times[-1] + timedelta(seconds=rate.seconds) - timezone.now()).total_seconds()))
    raise RunQuotaExceeded(f"You have started {used} runs recently; the limit is {rate.label}. "
                           f"Try again in {_wait_text(wait)}.", retry_after=wait)
