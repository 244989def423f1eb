"""Template tags for reviews: the session page's review panel and small summary helpers."""

from __future__ import annotations

from typing import Any

from django import template

from annotations.access import can_review as allowed
from annotations.records import summary_of
from annotations.review.diff import tag_diff
from annotations.review.panels import panel_context
from annotations.review.services import corrected_by
from annotations.review_rules import is_corrected

register = template.Library()


@register.inclusion_tag("annotations/review/partials/panel.html", takes_context=True)
def review_panel(context: dict[str, Any], session: Any) -> dict[str, Any]:
    """``{% review_panel session %}``: ratings, verdicts, corrections and the BIDS level of *session*."""

    request = context.get("request")
    if request is None:  # rendered outside a request (e.g. an email): nothing user-specific to show
        return {"session": session}
    return {**panel_context(request, session), "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("annotations/review/partials/badge.html")
def review_badge(session: Any) -> dict[str, Any]:
    """``{% review_badge session %}``: mean rating, verdict counts and agreement, from stored fields."""
    return {"summary": summary_of(session)}


@register.filter
def percent(value: float | None) -> str:
    """0.667 -> "67%"; None -> "" (no reviews, no agreement)."""
    return "" if value is None else f"{round(100 * value)}%"


@register.filter
def corrected(session: Any) -> bool:
    """``{% if s|corrected %}``: a reviewer's correction is the final annotation (no query)."""
    return is_corrected(session)


@register.filter
def can_review(user: Any) -> bool:
    return allowed(user)


@register.simple_tag
def annotation_origin(session: Any) -> dict[str, Any]:
    """``{% annotation_origin session as origin %}``: whether a reviewer's correction is the final
    annotation (``origin.corrected``) and who wrote it (``origin.corrector``)."""
    corrected = is_corrected(session)
    author = corrected_by(session) if corrected else None
    return {"corrected": corrected, "corrector": author.get_username() if author is not None else ""}


@register.simple_tag
def hed_diff(before: str, after: str) -> list[Any]:
    """``{% hed_diff v.before v.after as parts %}``: tag tokens, each same, added or removed."""
    return tag_diff(str(before or ""), str(after or ""))
