"""Throttling of session creation: each run costs model calls, so each user gets a budget."""

from __future__ import annotations

from typing import Any

from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


class ValidateThrottle(UserRateThrottle):
    """``validate`` requests per user (``HEDIT_VALIDATE_RATE``): validation costs CPU in the web process."""

    scope = "validate"

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class SessionCreateThrottle(UserRateThrottle):
    """``session_create`` requests per user (per address for anonymous callers)."""

    scope = "session_create"

    def get_rate(self) -> str | None:
        # Read at request time, not at import, so a changed setting takes effect.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)
