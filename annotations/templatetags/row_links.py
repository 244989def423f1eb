"""``{% row_url %}``: ``{% url %}`` for links a long page repeats on every row.

Django's ``reverse`` costs about 0.1 ms a call; the project page's level rows made four calls each, a third
of the page's time at 400 rows. The URL's pattern is reversed once (with a stand-in for the row's id) and
each row's link is the pattern with the id put in.
"""

from __future__ import annotations

import functools
import uuid
from typing import Any

from django import template
from django.urls import get_script_prefix, reverse

register = template.Library()

_INT_SLOT = 2_147_483_629
_UUID_SLOT = uuid.UUID("0badc0de-5107-4000-8000-00000000510f")


@functools.lru_cache(maxsize=512)
def _pattern(script_prefix: str, name: str, head: tuple[str, ...], slot: int | uuid.UUID) -> tuple[str, str]:
    """The URL around its last argument; *script_prefix* is in the key since ``reverse`` puts it in front."""
    before, _, after = reverse(name, args=[*head, slot]).rpartition(str(slot))
    return before, after


@register.simple_tag
def row_url(name: str, *args: Any) -> str:
    """``reverse(name, args=args)``, with the pattern cached for every value of the last argument (an int or a
    UUID, as a level's or a run's id)."""
    *head, last = args
    slot = _UUID_SLOT if isinstance(last, uuid.UUID) else _INT_SLOT if isinstance(last, int) else None
    if slot is None or isinstance(last, bool):
        return reverse(name, args=args)
    before, after = _pattern(get_script_prefix(), name, tuple(str(h) for h in head), slot)
    return f"{before}{last}{after}"
