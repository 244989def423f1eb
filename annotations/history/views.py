"""The history page: newest first, searchable, filterable, paged without counting every row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from annotations.history.filters import (
    DEFAULT_PER_PAGE,
    PER_PAGE_CHOICES,
    CheapPage,
    active_filters,
    cheap_page,
    collect_keys,
    counts_from_index,
    filter_sessions,
    page_total,
    parse_page,
    parse_per_page,
)
from annotations.history.forms import history_filter_fields
from annotations.models import AnnotationSession
from annotations.selectors import can_see_all, visible_sessions

# A search or an unindexed filter is counted up to this many matches; beyond, "more than" (see
# collect_keys: one scan that stops there, instead of counting every match of a broad search).
COUNT_LIMIT = 1000

# What a row shows; long text columns that the table never displays stay in the database.
ROW_FIELDS = ("id", "created_at", "description", "final_annotation", "status", "is_valid", "interrupted",
              "schema_version", "llm_call_count", "prompt_tokens", "completion_tokens", "cost_usd", "review_count",
              "mean_rating", "user__username", "low_confidence")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class HistoryRow:
    """A session formatted for the table once in Python: 50 rows of template filters cost more than
    the query (date, truncatechars and intcomma are slow per call)."""

    pk: str
    url: str
    created_iso: str
    created: str
    description: str
    annotation: str
    user: str
    status: str
    status_label: str
    validity: str
    schema_version: str
    tokens: str  # "" when the run made no LLM call: an offline run has no tokens or cost to show
    cost: str
    rating: str
    review_count: int
    # The evaluator understood too little of the description to vouch for its verdict.
    low_confidence: bool = False

    @classmethod
    def of(cls, s: AnnotationSession) -> HistoryRow:
        created = timezone.localtime(s.created_at)
        return cls(
            pk=str(s.pk), url=f"/sessions/{s.pk}/", created_iso=created.isoformat(),
            created=created.strftime("%Y-%m-%d %H:%M"),
            description=_clip(s.description, 110) or "(image only)", annotation=_clip(s.final_annotation, 120),
            user=s.user.get_username() if s.user else "—", status=s.status,
            status_label=s.get_status_display(),
            validity="" if s.is_valid is None else ("valid" if s.is_valid else "invalid"),
            schema_version=s.schema_version,
            tokens=f"{s.prompt_tokens + s.completion_tokens:,}" if s.llm_call_count else "",
            cost=f"${s.cost_usd:.4f}" if s.llm_call_count else "",
            rating="" if s.mean_rating is None else f"{s.mean_rating:.1f}",
            review_count=s.review_count, low_confidence=s.low_confidence)


def _page_and_total(qs: Any, params: Any, number: int, per_page: int) -> tuple[CheapPage, int, bool]:
    """The page, and the total: exact on an index, else exact up to COUNT_LIMIT ("more than")."""
    ordered = qs.order_by("-created_at")
    rows = AnnotationSession.objects.select_related("user").only(*ROW_FIELDS)
    if counts_from_index(params):
        page = cheap_page(ordered, number, per_page, rows=rows)
        return page, page_total(qs, page), False
    keys = collect_keys(qs, COUNT_LIMIT)
    page = cheap_page(ordered, number, per_page, rows=rows, keys=keys)
    if keys is not None:
        return page, len(keys), False
    if page.reached_end:  # the last page of a broad search: its end is the total
        return page, page_total(qs, page), False
    return page, max(COUNT_LIMIT, page.end_index), True


@login_required
@require_GET
def history(request: HttpRequest) -> HttpResponse:
    sees_all = can_see_all(request.user)
    qs, errors = filter_sessions(visible_sessions(request.user), request.GET)
    try:
        number = parse_page(request.GET.get("page"))
    except ValueError as exc:
        errors["page"] = str(exc)
        number = 1
    try:
        per_page = parse_per_page(request.GET.get("per_page"))
    except ValueError as exc:
        errors["per_page"] = str(exc)
        per_page = DEFAULT_PER_PAGE
    filters = active_filters(request.GET)
    page, rows, total, more = None, [], 0, False
    if not errors:
        page, total, more = _page_and_total(qs, request.GET, number, per_page)
        rows = [HistoryRow.of(s) for s in page.items]
    size_query = {} if per_page == DEFAULT_PER_PAGE else {"per_page": per_page}
    context: dict[str, Any] = {
        "fields": history_filter_fields(request.GET, show_user=sees_all),
        "search": request.GET.get("q", ""),
        "errors": errors,
        "page": page,
        "rows": rows,
        "show_user": sees_all,
        "filter_query": urlencode(filters),
        # Pager links keep the page size; the export link does not need it.
        "pager_query": urlencode({**filters, **size_query}),
        "per_page": per_page,
        "sizes": [{"size": n, "query": urlencode({**filters, "per_page": n})} for n in PER_PAGE_CHOICES],
        "total": total,
        "total_is_more": more,
        # Token and cost columns only when a run on this page called a language model.
        "show_usage": any(r.tokens for r in rows),
        "is_filtered": bool(set(filters) - {"q"}),
        "has_filters": bool(filters),
    }
    return render(request, "annotations/history/history.html", context, status=400 if errors else 200)
