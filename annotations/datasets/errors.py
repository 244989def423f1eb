"""The error a dataset request raises when it cannot be carried out.

A module of its own so that the inventory edits (:mod:`.inventory_edits`) and the project services
(:mod:`.services`), which both raise it, need not import each other.
"""

from __future__ import annotations

from annotations.errors import FieldError


class DatasetRequestError(FieldError):
    """A dataset request that cannot be carried out; *message* names the problem."""


__all__ = ["DatasetRequestError"]
