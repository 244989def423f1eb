"""The history page: newest first, searchable, filterable, paged without counting every row."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import F, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET

from annotations.access import can_see_all
from annotations.history.filters import (
    active_filters,
    counts_from_index,
    filter_bar_html,
    filter_fields,
    filter_sessions,
    with_page_defaults,
)
from annotations.history.pager import (
    DEFAULT_PER_PAGE,
    ORDERING,
    PER_PAGE_CHOICES,
    CheapPage,
    Cursor,
    about,
    cheap_page,
    collect_keys,
    counts,
    estimated_rows,
    page_total,
    paging,
    table_estimates,
)
from annotations.models import AnnotationSession, SessionStatus
from annotations.selectors import visible_sessions

# A search or an unindexed filter is counted up to this many matches; beyond, "more than" (see
# collect_keys: one scan that stops there, instead of counting every match of a broad search).
COUNT_LIMIT = 1000

# Every run, unfiltered, is not counted once the database estimates more than this many: PostgreSQL
# counts a million rows in ~50 ms on every page 1 (benchmarks/history_page.py), so the page says
# "about N" from the table's statistics instead.  Below it a COUNT on the created_at index is cheap.
ESTIMATE_ABOVE = 200_000

# Pager links to pages past this many rows carry a cursor (pager.Cursor): the next page then starts
# from the index at the last row shown, in constant time, where OFFSET walks every row before it.
# Nearer pages keep plain "?page=N" links (an OFFSET of 10,000 index entries costs about a millisecond).
CURSOR_FROM = 10_000

# What a row shows; long text columns that the table never displays stay in the database. The owner's name
# comes as a column of the row (_row_fields), not as a User object per row.
ROW_FIELDS = ("id", "created_at", "description", "final_annotation", "status", "is_valid", "interrupted",
              "schema_version", "llm_call_count", "prompt_tokens", "completion_tokens", "cost_usd", "review_count",
              "mean_rating", "user", "low_confidence")
_STATUS_LABELS = dict(SessionStatus.choices)
"""get_status_display's labels, looked up once: that method rebuilds its choices mapping on every call."""
COMMAND_LINE = "command line"
"""The owner shown for a run with no user: one started by ``manage.py annotate`` or ``annotate_dataset``."""


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
            user=_owner(s), status=s.status,
            status_label=_STATUS_LABELS.get(s.status, s.status),
            validity="" if s.is_valid is None else ("valid" if s.is_valid else "invalid"),
            schema_version=s.schema_version,
            tokens=f"{s.prompt_tokens + s.completion_tokens:,}" if s.llm_call_count else "",
            cost=f"${s.cost_usd:.4f}" if s.llm_call_count else "",
            rating="" if s.mean_rating is None else f"{s.mean_rating:.1f}",
            review_count=s.review_count, low_confidence=s.low_confidence)

    def html(self, *, show_user: bool, show_usage: bool) -> str:
        """The table row, escaped, in one string: the template language costs ~0.1 ms per row for these
        ten cells (a page of 200 rows spent most of its time there). The standard library's escape is Django's
        without the wrapper that checks every argument for a lazy string (the cells are plain strings)."""
        e = escape
        hed = f'<span class="desc__hed">{e(self.annotation)}</span>' if self.annotation else ""
        user = f'\n      <td data-label="User">{e(self.user)}</td>' if show_user else ""
        validity = (f'<span class="validity validity--{e(self.validity)}">{e(self.validity)}</span>'
                    if self.validity else "")
        low = ('<span class="validity validity--low-confidence" title="The evaluator understood little of the '
               'description">low confidence</span>' if self.low_confidence else "")
        usage = ""
        if show_usage:
            none = "" if self.tokens else " cell-none"
            usage = (f'\n      <td class="num{none}" data-label="Tokens">{e(self.tokens or "—")}</td>'
                     f'\n      <td class="num{none}" data-label="Cost">{e(self.cost or "—")}</td>')
        rating = (f'{e(self.rating)} <small class="muted">({self.review_count})</small>' if self.rating
                  else '<span class="muted">—</span>')
        return (f'\n    <tr data-session="{e(self.pk)}">'
                f'\n      <td class="nowrap" data-label="Created"><time datetime="{e(self.created_iso)}">'
                f'{e(self.created)}</time></td>'
                f'\n      <td class="desc" data-label="Description"><a href="{e(self.url)}">{e(self.description)}</a>'
                f'{hed}</td>{user}'
                f'\n      <td data-label="Status"><span class="badge badge--{e(self.status)}">'
                f'{e(self.status_label)}</span>{validity}{low}</td>'
                f'\n      <td class="cell-schema" data-label="Schema">{e(self.schema_version)}</td>{usage}'
                f'\n      <td class="num" data-label="Rating">{rating}</td>'
                f'\n    </tr>')


def _owner(s: AnnotationSession) -> str:
    """The run's user; for a run without one (the command line's), its dataset project's owner, if any."""
    if s.user_id is not None:
        return s.owner_name  # type: ignore[attr-defined] # _row_fields' annotation
    return getattr(s, "project_owner", None) or COMMAND_LINE


def rows_html(rows: list[HistoryRow], *, show_user: bool, show_usage: bool) -> SafeString:
    return mark_safe("".join(r.html(show_user=show_user, show_usage=show_usage) for r in rows))


_ESTIMATED_KINDS = {"levels": "dataset_level_id", "evaluations": "evaluation_batch_id"}
"""Filters of a kind of run (hide, show or only) an estimate covers, and the column that tells the kind."""


def _may_estimate(params: Any, whole: bool) -> bool:
    """The total may be the database's estimate (:func:`_estimated_total`): the user sees every run (*whole*) and
    the page selects every run, or every run bar the dataset-level or evaluation ones."""
    return whole and not set(active_filters(params)) - set(_ESTIMATED_KINDS)


def _estimated_total(params: Any, whole: bool) -> int | None:
    """The database's estimate of the rows selected when that is every run the user sees and the user sees
    every run (*whole*), or every run bar the dataset-level or evaluation ones (each kind's share taken apart);
    None when it is anything else."""
    if not _may_estimate(params, whole):
        return None
    active = active_filters(params)
    rows: int | None = None
    share = 1.0
    for name, column in _ESTIMATED_KINDS.items():
        choice = active.get(name, "show")
        if choice == "show":
            continue
        rows, null_share = table_estimates(AnnotationSession, column)
        if rows is None or null_share is None:
            return None
        share *= null_share if choice == "hide" else 1 - null_share
    if rows is None:
        return estimated_rows(AnnotationSession)
    return round(rows * share)


def _row_fields(qs: QuerySet[AnnotationSession]) -> QuerySet[AnnotationSession]:
    """*qs* loading what a row shows: the owner's name, and the project's owner for a run without a user."""
    return (qs.only(*ROW_FIELDS)
            .annotate(owner_name=F("user__username"),
                      project_owner=F("dataset_level__column__task__project__user__username")))


def _hidden_count(hidden: QuerySet[AnnotationSession] | None) -> int | None:
    """The dataset-level runs the page hides, up to COUNT_LIMIT + 1 ("more than"); None when it hides none."""
    return None if hidden is None else len(hidden.order_by().values_list("pk", flat=True)[:COUNT_LIMIT + 1])


def _page_and_total(qs: Any, params: Any, number: int, per_page: int, *, whole: bool = False,
                    hidden: QuerySet[AnnotationSession] | None = None) -> tuple[CheapPage, int, str, int | None]:
    """The page, the total, how to read it ("" exact, on an index or a scan up to COUNT_LIMIT; "more than",
    a broad search; "about", every run of a large history: the database's estimate), and how many runs of
    *hidden* (the dataset-level runs the page hides, counted from the indexes) there are.

    Each trip to the database costs a page under load far more than the query itself: page 1 reads the counts
    with its rows (``cheap_page(counting=...)``), and elsewhere a total that needs a COUNT is taken in the same
    trip as the hidden runs' count (:func:`.pager.counts`).
    """
    ordered = qs.order_by(*ORDERING)
    # A link's cursor, used where the page would otherwise be found by OFFSET (page 1 needs none).
    seek = {"after": Cursor.parse(params.get("after")), "before": Cursor.parse(params.get("before"))} \
        if number > 1 else {}
    if counts_from_index(params):
        # Page 1 reads the counts it needs with its rows, in one trip: the hidden runs, and the total unless the
        # database's estimate may stand in for it (then a large history is not counted at all).
        exact = not _may_estimate(params, whole)
        counting = ([(qs, None)] if exact else []) + ([(hidden, COUNT_LIMIT + 1)] if hidden is not None else [])
        page = cheap_page(ordered, number, per_page, shape=_row_fields, counting=counting, **seek)
        counted = list(page.counted or ())
        total = counted.pop(0) if counted and exact else None
        hidden_runs = counted.pop(0) if counted else None
        qualifier = ""
        if total is None and page.reached_end:
            total = page_total(qs, page)  # free: the page's own rows are all there are
        if total is None:
            estimate = _estimated_total(params, whole)
            if estimate is not None and estimate > ESTIMATE_ABOVE:
                # Never fewer than the rows this page has shown to exist.
                total, qualifier = max(about(estimate), page.end_index + page.has_next), "about"
        if total is None and hidden is not None and hidden_runs is None:
            total, hidden_runs = counts((qs, None), (hidden, COUNT_LIMIT + 1))
        if total is None:
            total = page_total(qs, page)
        if hidden_runs is None:
            hidden_runs = _hidden_count(hidden)
        return page, total, qualifier, hidden_runs
    keys = collect_keys(qs, COUNT_LIMIT)
    page, total, qualifier = _searched_page(qs, ordered, keys, number, per_page, seek)
    return page, total, qualifier, _hidden_count(hidden)


def _searched_page(qs: Any, ordered: Any, keys: list[Any] | None, number: int, per_page: int,
                   seek: dict[str, Any]) -> tuple[CheapPage, int, str]:
    """A page of a search (or an unindexed filter): *keys* all it found, or None for more than COUNT_LIMIT."""
    page = cheap_page(ordered, number, per_page, shape=_row_fields, keys=keys, **({} if keys is not None else seek))
    if keys is not None:
        return page, len(keys), ""
    if page.reached_end:  # the last page of a broad search: its end is the total
        return page, page_total(qs, page), ""
    return page, max(COUNT_LIMIT, page.end_index), "more than"


def _where(page: CheapPage, total: int, qualifier: str) -> str:
    """The pager's middle text: rows 51 to 100 "of about 1,200,000", or "3 runs" on an empty page."""
    counted = f"{qualifier} {total:,}" if qualifier else f"{total:,}"
    if page.items:
        return f"{page.start_index:,}\N{EN DASH}{page.end_index:,} of {counted}"
    return f"{counted} run{'' if total == 1 else 's'}"


def _pager_links(page: CheapPage, base: dict[str, Any]) -> tuple[str, str]:
    """The query strings of the "Newer" and "Older" links ("" for none), with a cursor past CURSOR_FROM."""
    newer = older = ""
    if page.has_previous:
        params: dict[str, Any] = {**base, "page": page.number - 1}
        if page.items and (page.number - 2) * page.per_page >= CURSOR_FROM:
            params["before"] = Cursor.of(page.items[0]).token
        newer = urlencode(params)
    if page.has_next:
        params = {**base, "page": page.number + 1}
        if page.items and page.number * page.per_page >= CURSOR_FROM:
            params["after"] = Cursor.of(page.items[-1]).token
        older = urlencode(params)
    return newer, older


def _hidden_level_runs(visible: QuerySet[AnnotationSession],
                       params: dict[str, Any]) -> QuerySet[AnnotationSession] | None:
    """The dataset-level runs the page hides, to count from the indexes; None when it shows them, or when
    counting them would scan (a text search)."""
    if params.get("levels") != "hide" or not counts_from_index(params):
        return None
    found, _ = filter_sessions(visible, {**params, "levels": "only"})
    return found


def _level_toggle(filters: dict[str, str], params: dict[str, Any], hidden: int | None) -> dict[str, Any]:
    """The toggle above the table: what the page does with dataset-level runs, and links to change it."""
    shown = {k: v for k, v in filters.items() if k != "levels"}
    return {"levels": params.get("levels"), "hidden_runs": hidden, "hidden_more": (hidden or 0) > COUNT_LIMIT,
            "hidden_label": f"{min(hidden or 0, COUNT_LIMIT):,}", "hide_levels_query": urlencode(shown),
            "show_levels_query": urlencode({**shown, "levels": "show"})}


@login_required
@require_GET
def history(request: HttpRequest) -> HttpResponse:
    sees_all = can_see_all(request.user)
    params = with_page_defaults(request.GET)  # dataset-level runs hidden unless asked for
    visible = visible_sessions(request.user)
    qs, errors = filter_sessions(visible, params)
    number, per_page, paging_errors = paging(request.GET)
    errors.update(paging_errors)
    filters = active_filters(request.GET)
    page, rows, total, qualifier, hidden = None, [], 0, "", None
    if not errors:
        page, total, qualifier, hidden = _page_and_total(qs, params, number, per_page, whole=not visible.query.where,
                                                         hidden=_hidden_level_runs(visible, params))
        rows = [HistoryRow.of(s) for s in page.items]
    size_query = {} if per_page == DEFAULT_PER_PAGE else {"per_page": per_page}
    show_usage = any(r.tokens for r in rows)
    newer_query, older_query = _pager_links(page, {**filters, **size_query}) if page else ("", "")
    context: dict[str, Any] = {
        "filter_bar": filter_bar_html(filter_fields(request.GET, show_user=sees_all), errors),
        "search": request.GET.get("q", ""),
        "errors": errors,
        "page": page,
        "rows": rows,
        "show_user": sees_all,
        # The export gets what the page shows, dataset-level runs hidden or not.
        "filter_query": urlencode(active_filters(params)),
        **_level_toggle(filters, params, hidden),
        # Pager links keep the filters and page size (the export link needs neither size nor cursor).
        "newer_query": newer_query,
        "older_query": older_query,
        "where": _where(page, total, qualifier) if page else "",
        "per_page": per_page,
        "sizes": [{"size": n, "query": urlencode({**filters, "per_page": n})} for n in PER_PAGE_CHOICES],
        "total": total,
        # "" for an exact total, else "more than" or "about", shown before it.
        "total_qualifier": qualifier,
        # Token and cost columns only when a run on this page called a language model.
        "show_usage": show_usage,
        "rows_html": rows_html(rows, show_user=sees_all, show_usage=show_usage),
        "is_filtered": bool(set(filters) - {"q"}),
        "has_filters": bool(filters),
    }
    return render(request, "annotations/history/history.html", context, status=400 if errors else 200)
