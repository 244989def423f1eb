"""Keyset pages over a queryset: constant memory and no OFFSET, for streams of any length."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Q, QuerySet


def keyset_pages(qs: QuerySet, size: int, *fields: str) -> Iterator[list[dict[str, Any]]]:
    """Rows of *qs* as dicts of *fields* (plus id and created_at), newest first, *size* at a time."""
    wanted = list(dict.fromkeys(["id", "created_at", *fields]))
    base = qs.order_by("-created_at", "-id").values(*wanted)
    page = list(base[:size])
    while page:
        yield page
        if len(page) < size:
            return
        last = page[-1]
        after = Q(created_at__lt=last["created_at"]) | Q(created_at=last["created_at"], id__lt=last["id"])
        page = list(base.filter(after)[:size])
