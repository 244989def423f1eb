"""Template tags for the review panel on a session page."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.inclusion_tag("annotations/partials/review_panel.html", takes_context=True)
def review_panel(context: dict[str, Any], session: Any) -> dict[str, Any]:
    return {"session": session, "request": context.get("request")}
