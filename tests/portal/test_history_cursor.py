"""Deep history pages through the pager's cursor links: the same rows as by page number, without OFFSET."""

from __future__ import annotations

import datetime as dt
import html
import re
from urllib.parse import parse_qsl

import pytest
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotations.history.pager import Cursor
from annotations.models import AnnotationSession
from tests.portal.test_history import bulk_sessions, rows

pytestmark = pytest.mark.django_db

HISTORY = reverse("annotations:history")


def link(response, rel: str) -> dict[str, str] | None:
    found = re.search(rf'rel="{rel}" href="\?([^"]*)"', response.content.decode())
    return dict(parse_qsl(html.unescape(found.group(1)))) if found else None


def get(client, params: dict[str, str]) -> tuple[object, list[str]]:
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(HISTORY, params)
    assert response.status_code == 200
    return response, [q["sql"] for q in ctx.captured_queries]


def test_links_past_the_threshold_carry_a_cursor_and_give_the_same_pages(client, user, monkeypatch) -> None:
    monkeypatch.setattr("annotations.history.views.CURSOR_FROM", 50)
    bulk_sessions(user, 130)
    client.force_login(user)
    by_number = {n: rows(client.get(HISTORY, {"per_page": "25", "page": str(n)})) for n in range(1, 7)}

    first = client.get(HISTORY, {"per_page": "25"})
    assert link(first, "next") == {"per_page": "25", "page": "2"}  # near pages: plain links
    second = client.get(HISTORY, link(first, "next"))
    older = link(second, "next")
    assert older["page"] == "3" and Cursor.parse(older["after"]).pk.hex == rows(second)[-1].replace("-", "")

    page = second
    for number in range(3, 7):
        page, sql = get(client, link(page, "next"))
        assert rows(page) == by_number[number]
        assert not any("OFFSET" in q.upper() for q in sql)  # found from the cursor, not by skipping rows
    assert link(page, "next") is None and "126\u2013130 of 130" in page.content.decode()

    # Back: a page deep enough is found before the first row shown; page 2 is a plain link again.
    newer = link(page, "prev")
    assert newer["page"] == "5" and "before" in newer
    fifth, sql = get(client, newer)
    assert rows(fifth) == by_number[5] and not any("OFFSET" in q.upper() for q in sql)
    fourth = client.get(HISTORY, link(fifth, "prev"))
    assert rows(fourth) == by_number[4]
    third = client.get(HISTORY, link(fourth, "prev"))
    assert link(third, "prev") == {"per_page": "25", "page": "2"}


def test_cursor_pages_keep_their_place_when_new_runs_arrive(client, user, monkeypatch) -> None:
    monkeypatch.setattr("annotations.history.views.CURSOR_FROM", 0)
    made = bulk_sessions(user, 75)
    client.force_login(user)
    first = client.get(HISTORY)
    bulk_sessions(user, 5)  # newer than everything shown: page 2 by number would repeat five rows
    second = client.get(HISTORY, link(first, "next"))
    assert rows(second) == [str(s.pk) for s in made[50:]]


def test_runs_created_at_the_same_instant_are_each_shown_once(client, user, monkeypatch) -> None:
    monkeypatch.setattr("annotations.history.views.CURSOR_FROM", 0)
    now = timezone.now()
    AnnotationSession.objects.bulk_create(
        AnnotationSession(user=user, description=f"tie {i}", schema_version="8.4.0") for i in range(60))
    AnnotationSession.objects.update(created_at=now)
    client.force_login(user)
    seen: list[str] = []
    page = client.get(HISTORY, {"per_page": "25"})
    seen += rows(page)
    while (params := link(page, "next")) is not None:
        assert "after" in params
        page = client.get(HISTORY, params)
        seen += rows(page)
    assert len(seen) == len(set(seen)) == 60
    by_number = [pk for n in (1, 2, 3) for pk in rows(client.get(HISTORY, {"per_page": "25", "page": str(n)}))]
    assert seen == by_number == sorted(seen)  # ties in key order, the same either way


def test_a_malformed_cursor_falls_back_to_the_page_number(client, user) -> None:
    bulk_sessions(user, 120)
    client.force_login(user)
    expected = rows(client.get(HISTORY, {"page": "2"}))
    for bad in ("nonsense", "12.zz", "99999999999999999999.0", "1.", "5.0000-not-a-key", ""):
        assert rows(client.get(HISTORY, {"page": "2", "after": bad})) == expected
        assert rows(client.get(HISTORY, {"page": "2", "before": bad})) == expected


def test_cursor_tokens_round_trip() -> None:
    session = AnnotationSession(created_at=timezone.now())
    cursor = Cursor.parse(Cursor.of(session).token)
    assert cursor == Cursor(session.created_at, session.pk)


def test_deep_offsets_on_sqlite_give_the_same_keys_with_ties(user, monkeypatch) -> None:
    """SQLite finds a deep OFFSET in steps (see pager.SPLIT_OFFSET_FROM); ties of created_at must not move rows."""
    from annotations.history import pager

    monkeypatch.setattr(pager, "SPLIT_OFFSET_FROM", 0)
    made = AnnotationSession.objects.bulk_create(
        AnnotationSession(user=user, description=f"tie {i}", schema_version="8.4.0") for i in range(30))
    now = timezone.now()
    for i, session in enumerate(made):  # groups of four runs created at one instant
        AnnotationSession.objects.filter(pk=session.pk).update(created_at=now - dt.timedelta(minutes=i // 4))
    qs = AnnotationSession.objects.order_by(*pager.ORDERING)
    everything = list(qs.values_list("pk", flat=True))
    for per_page in range(1, 6):  # every offset from 0 to 31 starts some page, inside a group of ties or at one
        for number in range(2, 31 // per_page + 2):  # the first page is read without an offset
            offset = (number - 1) * per_page
            page = pager.cheap_page(qs, number, per_page)  # its keys: per_page + 1 from the offset on
            assert [row.pk for row in page.items] == everything[offset:offset + per_page], (per_page, offset)
            assert page.seen == len(everything[offset:offset + per_page + 1]), (per_page, offset)
