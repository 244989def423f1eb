"""History page sizes (25-200) and totals: exact where an index counts, a lower bound for broad searches,
no count query for a short history."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from annotations.models import AnnotationSession

pytestmark = pytest.mark.django_db

HISTORY = "/sessions/"
DASH = "\u2013"  # the en dash of "1-50 of N"


def sessions(user, count: int, **fields) -> None:
    now = timezone.now()
    made = AnnotationSession.objects.bulk_create(
        AnnotationSession(user=user, description=f"event {i}", schema_version="8.4.0", **fields) for i in range(count))
    for i, s in enumerate(made):
        AnnotationSession.objects.filter(pk=s.pk).update(created_at=now - dt.timedelta(minutes=i))


def row_count(response) -> int:
    return response.content.decode().count("<tr data-session=")


@pytest.mark.parametrize("size", [25, 50, 100, 200])
def test_history_page_sizes(client, user, size) -> None:
    sessions(user, 210)
    client.force_login(user)
    response = client.get(HISTORY, {"per_page": str(size), "status": "queued"})
    assert response.status_code == 200 and row_count(response) == size
    page = response.content.decode()
    assert f"1{DASH}{size} of 210" in page
    # The pager keeps the size (the default needs no parameter).
    size_query = "" if size == 50 else f"&amp;per_page={size}"
    assert f'href="?status=queued{size_query}&amp;page=2"' in page
    assert f'<strong aria-current="true">{size}</strong>' in page


def test_history_default_size_and_a_bad_size(client, user) -> None:
    sessions(user, 60)
    client.force_login(user)
    response = client.get(HISTORY)
    assert row_count(response) == 50 and f"1{DASH}50 of 60" in response.content.decode()
    assert f"51{DASH}60 of 60" in client.get(HISTORY, {"page": "2"}).content.decode()
    bad = client.get(HISTORY, {"per_page": "7"})
    assert bad.status_code == 400
    assert "Page size (per_page): &#x27;7&#x27; is not one of 25, 50, 100, 200." in bad.content.decode()


def test_history_total_is_exact_on_indexes_and_a_lower_bound_for_broad_searches(client, user, monkeypatch) -> None:
    monkeypatch.setattr("annotations.history.views.COUNT_LIMIT", 30)
    sessions(user, 80)
    client.force_login(user)
    assert f"1{DASH}50 of 80" in client.get(HISTORY).content.decode()  # COUNT on an index
    assert f"1{DASH}50 of 80" in client.get(HISTORY, {"status": "queued"}).content.decode()
    # A text search counts no further than COUNT_LIMIT matches: "more than", never a full count...
    assert f"1{DASH}50 of more than 50" in client.get(HISTORY, {"q": "event"}).content.decode()
    assert f"51{DASH}80 of 80" in client.get(HISTORY, {"q": "event", "page": "2"}).content.decode()  # the end
    # ...and a search with fewer matches is exact, newest first, from the same single scan.
    page = client.get(HISTORY, {"q": "event 1"}).content.decode()
    assert f"1{DASH}11 of 11" in page
    assert re.findall(r">(event 1\d?)</a>", page) == ["event 1", *[f"event {i}" for i in range(10, 20)]]


def test_a_short_history_is_counted_without_a_count_query(client, user) -> None:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    sessions(user, 7)
    client.force_login(user)
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(HISTORY, {"q": "event"}).content.decode()
    assert f"1{DASH}7 of 7" in page
    assert not any("COUNT(" in q["sql"].upper() for q in ctx.captured_queries)
