"""The REST API's adapter to the validation limit of :mod:`annotations.limits` (``HEDIT_VALIDATE_RATE``)."""

from __future__ import annotations

from typing import Any

from rest_framework.throttling import BaseThrottle

from annotations.limits import validation_wait


class ValidateThrottle(BaseThrottle):
    """``/api/validate/`` per user: validation costs CPU in the web process. Counted apart from the page's."""

    def allow_request(self, request: Any, view: Any) -> bool:
        self._wait = validation_wait(request.user, scope="api")
        return not self._wait

    def wait(self) -> float | None:
        return self._wait or None
