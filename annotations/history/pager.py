"""Paging the history without COUNT(*): one page of keys at a time, then its rows.

``cheap_page`` finds a page's keys by OFFSET (walking the ordering index, in steps on SQLite past
SPLIT_OFFSET_FROM) or from a pager link's :class:`Cursor`; ``collect_keys`` sorts a rare search's every key
in one scan; ``page_total`` and ``estimated_rows`` say how many rows there are without counting them
where that would be slow (benchmarks/history_page.py).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.db.models import Model, Q, QuerySet
from django.db.models.expressions import RawSQL


@dataclass(frozen=True)
class CheapPage:
    """One page of results without a COUNT(*): fetch one row more than shown to learn if there is a next."""

    items: list[Any]
    number: int
    per_page: int
    has_next: bool
    seen: int = 0  # keys found from the page's offset on (at most per_page + 1)
    reached_end: bool = False  # True when those were all there are: the total is known
    counted: tuple[int, ...] | None = None  # cheap_page's *counting*, when it was read with the rows

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def start_index(self) -> int:
        return (self.number - 1) * self.per_page + 1 if self.items else 0

    @property
    def end_index(self) -> int:
        return (self.number - 1) * self.per_page + len(self.items)


MAX_PAGE = 100_000


def parse_page(raw: str | None) -> int:
    """The page number from a query value; raises ValueError with a message naming it."""
    text = (raw or "1").strip() or "1"
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE:
        raise ValueError(f"Page: {text!r} is not a page number from 1 to {MAX_PAGE}.")
    return int(text)


PER_PAGE_CHOICES = (25, 50, 100, 200)
DEFAULT_PER_PAGE = 50


def parse_per_page(raw: str | None) -> int:
    """The page size from a query value; raises ValueError with a message naming it."""
    text = (raw or "").strip()
    if not text:
        return DEFAULT_PER_PAGE
    if not text.isdigit() or int(text) not in PER_PAGE_CHOICES:
        raise ValueError(f"Page size (per_page): {text!r} is not one of {', '.join(map(str, PER_PAGE_CHOICES))}.")
    return int(text)


def paging(params: Any) -> tuple[int, int, dict[str, str]]:
    """The page number and size asked for in *params*, and a message for each that is not one (whose
    default is then used), keyed by its parameter as the filters' errors are."""
    errors: dict[str, str] = {}
    number, per_page = 1, DEFAULT_PER_PAGE
    try:
        number = parse_page(params.get("page"))
    except ValueError as exc:
        errors["page"] = str(exc)
    try:
        per_page = parse_per_page(params.get("per_page"))
    except ValueError as exc:
        errors["per_page"] = str(exc)
    return number, per_page, errors


def _count_sql(queries: Sequence[tuple[QuerySet[Any], int | None]], db: str) -> list[tuple[str, list[Any]]]:
    """A scalar subquery counting each queryset (up to its limit, when it has one), with its parameters."""
    found: list[tuple[str, list[Any]]] = []
    for n, (qs, limit) in enumerate(queries):
        keys = qs.order_by().values("pk")
        sql, params = (keys[:limit] if limit is not None else keys).query.get_compiler(using=db).as_sql()
        found.append((f"(SELECT COUNT(*) FROM ({sql}) AS counted_{n})", list(params)))
    return found


def counts(*queries: tuple[QuerySet[Any], int | None]) -> list[int]:
    """How many rows each queryset selects (at most its limit, when it has one), in one round trip.

    Each is counted by a subquery of its own, so each keeps the plan it has alone (an index-only COUNT stays
    one): under load a page's time goes on its trips to the database, each one waiting its turn for the
    interpreter lock on the way back (benchmarks/README.md, "History under load").
    """
    db = queries[0][0].db
    parts = _count_sql(queries, db)
    with connections[db].cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(sql for sql, _ in parts), [p for _, params in parts for p in params])
        return [int(n) for n in cursor.fetchone()]


def page_total(qs: QuerySet[Any], page: CheapPage) -> int:
    """The exact number of rows of *qs*, for filters that count from an index: free when the page's
    keys query reached the end, else one COUNT(*) on the index."""
    if page.reached_end:
        return (page.number - 1) * page.per_page + page.seen
    return qs.order_by().count()


def estimated_rows(model: type[Model]) -> int | None:
    """The database's own estimate of how many rows *model*'s table holds (see :func:`table_estimates`)."""
    return table_estimates(model)[0]


def table_estimates(model: type[Model], null_column: str = "") -> tuple[int | None, float | None]:
    """The database's own estimates, without counting: how many rows *model*'s table holds (PostgreSQL's
    ``reltuples``, from the last VACUUM or ANALYZE, which autovacuum keeps fresh, scaled to the table's present
    size the way the planner does) and, with *null_column*, the share of them whose column is NULL
    (``pg_stats.null_frac``), both in one query.  None for each on other databases and for a table never
    analysed."""
    connection = connections[router.db_for_read(model)]
    if connection.vendor != "postgresql":
        return None, None
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples, relpages, pg_relation_size(oid) / current_setting('block_size')::int, "
                       "(SELECT null_frac FROM pg_stats WHERE schemaname = current_schema() AND tablename = %s "
                       "AND attname = %s) FROM pg_class WHERE oid = to_regclass(%s)",
                       [model._meta.db_table, null_column, connection.ops.quote_name(model._meta.db_table)])
        found = cursor.fetchone()
    if found is None:
        return None, None
    tuples, pages, current_pages, null_fraction = found
    share = None if null_fraction is None else float(null_fraction)
    if tuples < 0 or (pages == 0 and tuples > 0):  # never analysed
        return None, share
    return (round(tuples / pages * current_pages) if pages > 0 else round(tuples)), share


def about(number: int) -> int:
    """An estimate rounded to three significant figures, so it does not pretend to be a count."""
    digits = len(str(abs(number)))
    return round(number, -(digits - 3)) if digits > 3 else number


def collect_keys(qs: QuerySet[Any], limit: int) -> list[Any] | None:
    """Every key of *qs*, newest first (ties by key), when there are at most *limit*; None when there are more.

    For filters that scan the table (a text search): one unordered scan that stops at the
    (limit + 1)-th match.  A rare search is found, sorted and counted in that one pass, where
    walking the date index to fill a page and then counting would read the table twice over
    (benchmarks/history_page.py); a broad one stops early and says "more than *limit*".
    """
    found = list(qs.order_by().values_list("pk", "created_at")[:limit + 1])
    if len(found) > limit:
        return None
    found.sort(key=lambda row: str(row[0]))
    found.sort(key=lambda row: row[1], reverse=True)  # stable: ties stay in key order, as ORDERING has them
    return [pk for pk, _ in found]


# The history's order, newest first; the key breaks ties so that a cursor is a place in it.  On
# PostgreSQL the index (created_at DESC, id) of migration 0007 is exactly this order.
ORDERING = ("-created_at", "pk")

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Cursor:
    """A row's place in ORDERING, carried by the pager's links to deep pages (``after``: the last row
    shown, for the next page; ``before``: the first row shown, for the previous one), so such a page
    starts from the index at that place instead of skipping every row before it (OFFSET)."""

    created_at: dt.datetime
    pk: uuid.UUID

    @classmethod
    def of(cls, obj: Any) -> Cursor:
        return cls(obj.created_at, obj.pk)

    @property
    def token(self) -> str:
        delta = self.created_at - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return f"{micros}.{self.pk.hex}"

    @classmethod
    def parse(cls, raw: str | None) -> Cursor | None:
        """The cursor in a link, or None for a missing or malformed one (the page number still holds)."""
        micros, dot, key = (raw or "").strip().partition(".")
        if not dot or not micros.lstrip("-").isdigit() or len(micros) > 19:
            return None
        try:
            return cls(_EPOCH + dt.timedelta(microseconds=int(micros)), uuid.UUID(hex=key))
        except (ValueError, OverflowError):
            return None


def _seek(qs: QuerySet[Any], cursor: Cursor, *, older: bool) -> QuerySet[Any]:
    """The rows of *qs* after (older) or before (newer) *cursor* in ORDERING.  The bound on created_at
    alone is what an index range starts from; the key only settles ties at that one instant."""
    if older:
        return qs.filter(created_at__lte=cursor.created_at).filter(
            Q(created_at__lt=cursor.created_at) | Q(pk__gt=cursor.pk))
    return qs.filter(created_at__gte=cursor.created_at).filter(
        Q(created_at__gt=cursor.created_at) | Q(pk__lt=cursor.pk))


# From this offset on, an OFFSET on a database without an index in ORDERING (SQLite: its created_at
# index does not hold the key that breaks ties) is found in steps; see _offset_keys.
SPLIT_OFFSET_FROM = 1000


def _offset_keys(qs: QuerySet[Any], offset: int, limit: int) -> list[Any]:
    """The keys at *offset* of *qs* (ordered by ORDERING).

    On PostgreSQL one OFFSET query that walks the (created_at DESC, id) index alone.  SQLite's index
    has created_at only, so sorting by the key too would read every skipped row from the table (100,000
    sessions: 4 ms became 84 ms at offset 50,000); there the created_at at the offset and the count of
    newer rows come from the index alone, and only the rows from that instant on are sorted by key.
    """
    if offset < SPLIT_OFFSET_FROM or connections[qs.db].vendor == "postgresql":
        return list(qs.values_list("pk", flat=True)[offset:offset + limit])
    instant = list(qs.order_by("-created_at").values_list("created_at", flat=True)[offset:offset + 1])
    if not instant:
        return []
    newer = qs.filter(created_at__gt=instant[0]).order_by().count()
    start = max(0, offset - newer)  # the rows of that instant that come before the offset
    return list(qs.filter(created_at__lte=instant[0]).values_list("pk", flat=True)[start:start + limit])


def cheap_page(qs: QuerySet[Any], number: int, per_page: int = 50, *,
               shape: Callable[[QuerySet[Any]], QuerySet[Any]] | None = None, keys: list[Any] | None = None,
               after: Cursor | None = None, before: Cursor | None = None,
               counting: Sequence[tuple[QuerySet[Any], int | None]] = ()) -> CheapPage:
    """One page of *qs* (ordered by ORDERING) in two steps: the page's keys, then its rows.

    The keys query carries the offset, so a deep page walks only the ordering index instead of
    reading (and joining) every row it skips; *shape* turns a queryset into the one that loads the page's
    rows with whatever select_related/only the caller wants.  The first page skips nothing, so it is read
    in one step (one trip to the database less).  *keys*: every key already in order
    (see collect_keys), so no keys query at all.  *after* / *before*: the page is the one that
    follows / precedes that row (a pager link's cursor), found from the index without an offset;
    *number* then only labels it.  *counting*: querysets (and limits) to count as :func:`counts` does, in the
    same trip as the first page's rows (``CheapPage.counted``; None on other pages, and on an empty first
    page, which has no row to carry them).
    """
    offset = (number - 1) * per_page
    shape = shape or (lambda found: found)
    if offset == 0 and keys is None and after is None and before is None:
        # The counts ride on every row as uncorrelated scalar subqueries: the database runs each once.
        names = [f"_counted_{n}" for n in range(len(counting))]
        rows = shape(qs).annotate(**{name: RawSQL(sql, params) for name, (sql, params)
                                     in zip(names, _count_sql(counting, qs.db), strict=True)})
        first = list(rows[:per_page + 1])
        counted = tuple(int(getattr(first[0], name)) for name in names) if first and names else None
        return CheapPage(items=first[:per_page], number=number, per_page=per_page, has_next=len(first) > per_page,
                         seen=len(first), reached_end=len(first) <= per_page, counted=counted)
    if keys is not None:
        window = keys[offset:offset + per_page + 1]
    elif after is not None:
        window = list(_seek(qs, after, older=True).values_list("pk", flat=True)[:per_page + 1])
    elif before is not None:
        window = list(_seek(qs, before, older=False).reverse().values_list("pk", flat=True)[:per_page])[::-1]
    else:
        window = _offset_keys(qs, offset, per_page + 1)
    seen = len(window)
    # A page before a cursor has the cursor's row (and the page it came from) after it.
    has_next = seen > per_page or (before is not None and keys is None)
    window = window[:per_page]
    by_key = {obj.pk: obj for obj in shape(qs.model._default_manager.all()).filter(pk__in=window)} if window else {}
    items = [by_key[k] for k in window if k in by_key]
    # Past the end (an empty page after the first) says nothing about where the end is.
    reached_end = not has_next and (seen > 0 or number == 1)
    return CheapPage(items=items, number=number, per_page=per_page, has_next=has_next, seen=seen,
                     reached_end=reached_end)
