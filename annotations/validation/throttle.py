"""Per-user rate limit of the validation page and its fragment endpoint (``HEDIT_VALIDATE_RATE``).

The REST API's ``/api/validate/`` has the same rate through a DRF throttle (``annotations.api.throttles``).
Counted per process in Django's cache: it protects the CPU of the process that validates.
"""

from __future__ import annotations

import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

from annotations.runs.quota import parse_rate


def validation_wait(user: Any) -> int:
    """0 when *user* may validate now (and counts this one), else the seconds until they may."""
    rate = parse_rate(getattr(settings, "HEDIT_VALIDATE_RATE", "120/minute"), "HEDIT_VALIDATE_RATE")
    if rate is None:
        return 0
    now = time.time()
    window = int(now // rate.seconds)
    key = f"hedit:validate:{getattr(user, 'pk', None)}:{window}"
    cache.add(key, 0, timeout=rate.seconds + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=rate.seconds + 1)
        count = 1
    if count <= rate.limit:
        return 0
    return max(1, math.ceil((window + 1) * rate.seconds - now))
