"""Every per-user limit on how often something may be asked for, and the one parser of their rates.

Two windows, one for each kind of cost:

- **Runs and dataset levels** (``HEDIT_RUN_RATE``, default 60/hour; ``HEDIT_DATASET_RATE``, default
  2000/day levels) are counted in the database over a sliding window, so every web process and worker
  sees the same count. The annotate form, Re-run and the REST API call :func:`check_run_quota` before
  they store a run; a dataset job, a level's own run, an answered question and the Re-run of a level's
  run call :func:`check_level_quota` for all their levels before they store any. Dataset levels never use
  up the run quota, nor single runs the dataset quota. Both checks lock the user's row
  (:func:`_hold_user_lock`) in the transaction that then stores the runs, so concurrent requests of one
  user count one after the other and the quota holds exactly.
- **Validation** (``HEDIT_VALIDATE_RATE``, default 60/minute) is counted per process in Django's cache
  over a fixed window (:func:`validation_wait`): it protects the CPU of the process that validates. The
  page and the API count separately (``scope``), at the same rate.
- **HED queries** over a dataset (``HEDIT_QUERY_RATE``, default 120/minute: searches, design matrices,
  summaries and compares) are counted the same way (:func:`check_query_rate`); a query string is at most
  :data:`MAX_QUERY_CHARS` characters (:func:`check_query_length`).

A rate reads ``N/second``, ``N/minute``, ``N/hour``, ``N/day`` or ``N/5m`` (:func:`parse_rate`);
``none`` turns a limit off. Going past a limit raises :class:`QuotaExceeded` (429 with ``retry_after``).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from annotations.errors import FieldError, QuotaExceeded
from annotations.models import AnnotationSession, EvaluationBatch
from bidsdata.usage.queries import MAX_QUERY_CHARS

# The defaults when a setting is missing altogether; hedit_site/settings.py reads the same ones from the environment.
DEFAULT_RATES = {"HEDIT_RUN_RATE": "60/hour", "HEDIT_DATASET_RATE": "2000/day", "HEDIT_VALIDATE_RATE": "60/minute",
                 "HEDIT_EVALUATION_RATE": "2000/day", "HEDIT_QUERY_RATE": "120/minute"}

_PERIODS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600,
            "d": 86400, "day": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([a-z]+?)s?\s*$")


@dataclass(frozen=True)
class Rate:
    limit: int
    seconds: int

    @property
    def label(self) -> str:
        names = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}
        unit = names.get(self.seconds) or f"{self.seconds} seconds"
        return f"{self.limit} per {unit}"


def parse_rate(rate: str | None, setting: str = "HEDIT_RUN_RATE") -> Rate | None:
    """``"60/hour"``, ``"10/5m"``, ``"1000/day"``; None for ``"none"`` or empty (no limit)."""
    text = (rate or "").strip().lower()
    if text in {"", "none", "off", "0"}:
        return None
    match = _RATE.match(text)
    if not match or match.group(3) not in _PERIODS:
        raise ImproperlyConfigured(f"{setting} must look like 60/hour or 10/5m, not {rate!r}")
    multiple = int(match.group(2) or 1)
    return Rate(limit=int(match.group(1)), seconds=multiple * _PERIODS[match.group(3)])


def rate_of(setting: str) -> Rate | None:
    """The rate the setting named *setting* holds now (read at each call, so an override takes effect)."""
    return parse_rate(getattr(settings, setting, DEFAULT_RATES[setting]), setting)


def run_rate() -> Rate | None:
    return rate_of("HEDIT_RUN_RATE")


def _counted(user: Any) -> bool:
    # Runs without a user (the command line) are not counted.
    return user is not None and getattr(user, "is_authenticated", False)


def wait_text(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


# --- the database window: runs and dataset levels ----------------------------------------------


def _hold_user_lock(user: Any) -> None:
    """Lock *user*'s row until the caller's transaction ends.

    Counting the window and storing the new runs must be one step: without it, concurrent requests each
    count the same old total and all store (20 answers at once passed a 3/day limit). A second request of
    the same user waits here until the first has committed its runs (or rolled back), then counts them.
    The caller stores its runs in the same transaction; outside one the lock would end before the insert.
    """
    if transaction.get_autocommit():
        raise TransactionManagementError("a quota is checked inside the transaction that stores the runs")
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))


def check_run_quota(user: Any, count: int = 1) -> None:
    """Raise :class:`QuotaExceeded` when *user* may not start *count* more single runs now.

    Call it inside the transaction that stores the runs (it locks the user's row until that ends)."""
    rate = run_rate()
    if rate is None or not _counted(user):
        return
    _hold_user_lock(user)
    since = timezone.now() - timedelta(seconds=rate.seconds)
    recent = AnnotationSession.objects.filter(user=user, created_at__gte=since, dataset_level__isnull=True,
                                              evaluation_batch__isnull=True)
    used = recent.count()
    if used + count <= rate.limit:
        return
    # The wait until enough of the window's runs have aged out to make room for *count*.
    free_after = used + count - rate.limit
    times = list(recent.order_by("created_at").values_list("created_at", flat=True)[:free_after])
    if count > rate.limit or not times:
        raise QuotaExceeded(f"{count} runs are more than the limit of {rate.label} (HEDIT_RUN_RATE).",
                            retry_after=rate.seconds)
    wait = max(1, math.ceil((times[-1] + timedelta(seconds=rate.seconds) - timezone.now()).total_seconds()))
    raise QuotaExceeded(f"You have started {used} runs recently; the limit is {rate.label}. "
                        f"Try again in {wait_text(wait)}.", retry_after=wait)


def check_level_quota(user: Any, count: int) -> None:
    """Raise :class:`QuotaExceeded` when annotating *count* more dataset levels would pass ``HEDIT_DATASET_RATE``.

    A dataset holds far more levels than anyone types descriptions, so its runs are not counted against
    ``HEDIT_RUN_RATE``, and a large job never blocks a user's single runs. Call it inside the transaction
    that stores the runs, for the user who will own them (the window counts that user's rows).
    """
    rate = rate_of("HEDIT_DATASET_RATE")
    if rate is None or count == 0 or not _counted(user):
        return
    _hold_user_lock(user)
    since = timezone.now() - timedelta(seconds=rate.seconds)
    used = AnnotationSession.objects.filter(user=user, dataset_level__isnull=False, created_at__gte=since).count()
    if used + count > rate.limit:
        levels = "1 level" if count == 1 else f"{count} levels"
        raise QuotaExceeded(f"Annotating {levels} would pass the dataset limit of {rate.label} "
                            f"(HEDIT_DATASET_RATE); {max(0, rate.limit - used)} remain now.",
                            retry_after=rate.seconds)


def check_evaluation_quota(user: Any, count: int) -> None:
    """Raise :class:`QuotaExceeded` when evaluating *count* more items would pass ``HEDIT_EVALUATION_RATE``.

    An evaluation runs a whole set at once: its runs count against this quota alone (never the run or dataset
    quota), by the items of the evaluations *user* started in the window. Call it inside the transaction that
    stores the evaluation.
    """
    rate = rate_of("HEDIT_EVALUATION_RATE")
    if rate is None or count == 0 or not _counted(user):
        return
    _hold_user_lock(user)
    since = timezone.now() - timedelta(seconds=rate.seconds)
    used = sum(EvaluationBatch.objects.filter(user=user, created_at__gte=since).values_list("total", flat=True))
    if used + count > rate.limit:
        raise QuotaExceeded(f"Evaluating {count} item{'s' if count != 1 else ''} would pass the evaluation limit of "
                            f"{rate.label} (HEDIT_EVALUATION_RATE); {max(0, rate.limit - used)} remain now.",
                            retry_after=rate.seconds)


# --- the cache window: validation ----------------------------------------------------------------


def validation_wait(user: Any, scope: str = "page") -> int:
    """0 when *user* may validate now (and counts this one), else the seconds until they may."""
    return _window_wait("HEDIT_VALIDATE_RATE", f"validate:{scope}", user)


def check_query_rate(user: Any, scope: str = "page") -> None:
    """Count one HED query of *user* (a search, design, summary or compare); :class:`QuotaExceeded` past
    ``HEDIT_QUERY_RATE`` (the page and the API count apart)."""
    wait = _window_wait("HEDIT_QUERY_RATE", f"query:{scope}", user)
    if wait:
        rate = rate_of("HEDIT_QUERY_RATE")
        raise QuotaExceeded(f"You have run many HED queries just now; the limit is {rate.label if rate else ''} "
                            f"(HEDIT_QUERY_RATE). Try again in {wait_text(wait)}.", retry_after=wait)


def check_query_length(text: str, field: str = "q") -> None:
    """:class:`FieldError` on *field* for a query string past :data:`MAX_QUERY_CHARS` characters."""
    if len(text) > MAX_QUERY_CHARS:
        raise FieldError(field, f"a query is at most {MAX_QUERY_CHARS:,} characters, not {len(text):,}")


def _window_wait(setting: str, scope: str, user: Any) -> int:
    """0 when *user* is within *setting*'s rate in this fixed window (and counts this one), else the wait."""
    rate = rate_of(setting)
    if rate is None:
        return 0
    now = time.time()
    window = int(now // rate.seconds)
    key = f"hedit:{scope}:{getattr(user, 'pk', None)}:{window}"
    cache.add(key, 0, timeout=rate.seconds + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=rate.seconds + 1)
        count = 1
    if count <= rate.limit:
        return 0
    return max(1, math.ceil((window + 1) * rate.seconds - now))
