"""API permissions, the same rules the pages apply."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission

from annotations.access import can_review


class IsReviewerToWrite(BasePermission):
    """Anyone who may see the session reads; only reviewers and staff write (``access.can_review``)."""

    message = "Only reviewers can do this."

    def has_permission(self, request: Any, view: Any) -> bool:
        return request.method in SAFE_METHODS or can_review(request.user)
