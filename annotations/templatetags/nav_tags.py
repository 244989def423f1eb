"""Navigation helpers: the current page, and who sees the reviewers' links."""

from __future__ import annotations

from typing import Any

from django import template

from annotations.access import can_see_all

register = template.Library()


@register.simple_tag(takes_context=True)
def nav_active(context: template.Context, *url_names: str) -> str:
    """'page' for aria-current when the current request resolved to one of *url_names*."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    if match is None:
        return ""
    return "page" if match.view_name in url_names else ""


@register.filter
def sees_all(user: Any) -> bool:
    """Reviewers and staff: they get the review queue and everyone's sessions (``access.can_see_all``)."""
    return can_see_all(user)
