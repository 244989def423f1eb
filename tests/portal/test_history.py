"""History page and the shared filter function."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotations.history.filters import filter_sessions
from annotations.models import AnnotationSession, SessionStatus
from tests.support.runs import make_session

pytestmark = pytest.mark.django_db

HISTORY = reverse("annotations:history")


def unbounded_counts(sqls: list[str]) -> list[str]:
    """The COUNTs in *sqls* that count every row they select: a total's COUNT. Counts kept to a LIMIT (the hidden
    dataset-level runs', "more than 1,000") and the page's own rows are not among them."""
    found = [m.group(0) for sql in sqls for m in re.finditer(r"COUNT\(\*\) FROM \((.*?)\) (?:AS )?counted_\d+", sql)
             if "LIMIT" not in m.group(1)]
    return found + [sql for sql in sqls if re.search(r'COUNT\(\*\) AS "__count"', sql)]


def rows(response) -> list[str]:
    return re.findall(r'<tr data-session="([0-9a-f-]+)"', response.content.decode())


def bulk_sessions(user, count: int, **fields) -> list[AnnotationSession]:
    now = timezone.now()
    made = AnnotationSession.objects.bulk_create(
        AnnotationSession(user=user, description=f"event {i}", schema_version="8.4.0", **fields)
        for i in range(count))
    # auto_now_add gives every row the same instant; spread them so the order is known.
    for i, s in enumerate(made):
        AnnotationSession.objects.filter(pk=s.pk).update(created_at=now - dt.timedelta(minutes=i))
    return made


def test_history_lists_own_sessions_newest_first(client, user, other_user) -> None:
    mine = bulk_sessions(user, 3)
    make_session(other_user, description="not mine")
    client.force_login(user)
    response = client.get(HISTORY)
    assert response.status_code == 200
    assert rows(response) == [str(s.pk) for s in mine]
    assert "not mine" not in response.content.decode()
    assert f'href="{mine[0].get_absolute_url()}"' in response.content.decode()


def test_reviewers_see_everyone_and_can_filter_by_user(client, user, other_user, reviewer) -> None:
    make_session(user, description="ann's run")
    make_session(other_user, description="bob's run")
    client.force_login(reviewer)
    page = client.get(HISTORY).content.decode()
    assert "ann&#x27;s run" in page and "bob&#x27;s run" in page and 'name="user"' in page
    page = client.get(HISTORY, {"user": "bob"}).content.decode()
    assert "bob&#x27;s run" in page and "ann&#x27;s run" not in page


def test_a_user_filter_never_widens_what_a_user_sees(client, user, other_user) -> None:
    make_session(other_user, description="bob's run")
    client.force_login(user)
    page = client.get(HISTORY, {"user": "bob"}).content.decode()
    assert "bob&#x27;s run" not in page and 'name="user"' not in page


def test_search_covers_description_and_annotation(client, user) -> None:
    make_session(user, description="A red circle appears")
    make_session(user, description="A tone plays", final_annotation="Sensory-event, Auditory-presentation")
    make_session(user, description="A button press")
    client.force_login(user)
    assert len(rows(client.get(HISTORY, {"q": "circle"}))) == 1
    assert len(rows(client.get(HISTORY, {"q": "auditory-PRESENTATION"}))) == 1
    assert "No runs match" in client.get(HISTORY, {"q": "nothing like this"}).content.decode()


def test_status_validity_schema_and_date_filters(client, user) -> None:
    ok = make_session(user, status=SessionStatus.SUCCEEDED, is_valid=True)
    bad = make_session(user, status=SessionStatus.INVALID, is_valid=False, schema_version="8.3.0")
    old = make_session(user, status=SessionStatus.SUCCEEDED, is_valid=True)
    AnnotationSession.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=40))
    client.force_login(user)
    assert rows(client.get(HISTORY, {"status": "invalid"})) == [str(bad.pk)]
    assert set(rows(client.get(HISTORY, {"valid": "valid"}))) == {str(ok.pk), str(old.pk)}
    assert rows(client.get(HISTORY, {"schema_version": "8.3.0"})) == [str(bad.pk)]
    since = (timezone.localdate() - dt.timedelta(days=7)).isoformat()
    assert str(old.pk) not in rows(client.get(HISTORY, {"date_from": since}))
    until = (timezone.localdate() - dt.timedelta(days=30)).isoformat()
    assert rows(client.get(HISTORY, {"date_to": until})) == [str(old.pk)]


@pytest.mark.parametrize("params, message", [
    ({"status": "done"}, "Status: &#x27;done&#x27; is not one of"),
    ({"valid": "maybe"}, "Validity (valid): &#x27;maybe&#x27; is not one of"),
    ({"schema_version": "1.0"}, "Schema (schema_version): &#x27;1.0&#x27; is not one of"),
    ({"date_from": "yesterday"}, "is not a date (use YYYY-MM-DD)."),
    ({"date_from": "2025-02-01", "date_to": "2025-01-01"}, "To (date_to): the end date is before the start date."),
    ({"reviewed": "sometimes"}, "Reviewed: &#x27;sometimes&#x27;"),
    ({"verdict": "meh"}, "Verdict: &#x27;meh&#x27;"),
    ({"min_rating": "9"}, "Min rating (min_rating): &#x27;9&#x27; is not a number from 1 to 5."),
    ({"page": "abc"}, "Page: &#x27;abc&#x27; is not a page number"),
    # PostgreSQL raises on NUL in a query parameter: a 500 there unless caught here.
    ({"q": "red\x00"}, "Search (q): the value contains a NUL character."),
    ({"user": "ann\x00"}, "User: the value contains a NUL character."),
])
def test_bad_filters_are_400_with_a_message(client, user, params, message) -> None:
    client.force_login(user)
    response = client.get(HISTORY, params)
    assert response.status_code == 400
    assert message in response.content.decode()


@pytest.mark.parametrize("params", [{"date_to": "9999-12-31"}, {"date_from": "0001-01-01"},
                                    {"date_from": "0001-01-01", "date_to": "9999-12-31"}])
def test_the_first_and_last_days_are_valid_bounds(client, user, params) -> None:
    # The day after 9999-12-31 does not exist: the bound used to overflow into a 500.
    session = make_session(user)
    client.force_login(user)
    response = client.get(HISTORY, params)
    assert response.status_code == 200
    assert rows(response) == [str(session.pk)]


def test_review_filters(user) -> None:
    unrated = make_session(user)
    liked = make_session(user, review_count=2, mean_rating=4.5, accept_count=2)
    mixed = make_session(user, review_count=2, mean_rating=2.5, accept_count=1, reject_count=1)
    fix = make_session(user, review_count=1, mean_rating=3.0, needs_fix_count=1)
    base = AnnotationSession.objects.all()

    def ids(**params: str) -> set:
        qs, errors = filter_sessions(base, params)
        assert errors == {}
        return set(qs.values_list("pk", flat=True))

    assert ids(reviewed="unrated") == {unrated.pk}
    assert ids(reviewed="reviewed") == {liked.pk, mixed.pk, fix.pk}
    assert ids(verdict="accept") == {liked.pk, mixed.pk}
    assert ids(verdict="reject") == {mixed.pk}
    assert ids(verdict="needs-fix") == {fix.pk}
    assert ids(min_rating="3") == {liked.pk, fix.pk}
    assert ids(verdict="accept", min_rating="4") == {liked.pk}


def test_filter_function_ignores_unknown_and_blank_params(user) -> None:
    make_session(user)
    qs, errors = filter_sessions(AnnotationSession.objects.all(), {"format": "csv", "status": "", "q": " "})
    assert errors == {} and qs.count() == 1


def test_pagination_50_per_page(client, user) -> None:
    made = bulk_sessions(user, 120)
    client.force_login(user)
    first = client.get(HISTORY)
    assert rows(first) == [str(s.pk) for s in made[:50]]
    assert 'rel="next" href="?page=2"' in first.content.decode() and 'rel="prev"' not in first.content.decode()
    last = client.get(HISTORY, {"page": 3})
    assert rows(last) == [str(s.pk) for s in made[100:]]
    assert 'rel="next"' not in last.content.decode() and 'rel="prev" href="?page=2"' in last.content.decode()


def test_pagination_keeps_filters(client, user) -> None:
    bulk_sessions(user, 60, status=SessionStatus.SUCCEEDED)
    client.force_login(user)
    page = client.get(HISTORY, {"status": "succeeded", "q": "event"}).content.decode()
    assert 'href="?q=event&amp;status=succeeded&amp;page=2"' in page


def test_queries_per_page_do_not_grow_with_rows(client, reviewer, user, other_user) -> None:
    client.force_login(reviewer)

    def queries() -> list[str]:
        # request_started empties the query log, so the capture must start from an empty one.
        reset_queries()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(HISTORY).status_code == 200
        return [q["sql"] for q in ctx.captured_queries]

    bulk_sessions(user, 3)
    few = queries()
    bulk_sessions(other_user, 80)
    many = queries()
    bulk_sessions(other_user, 200)
    more = queries()
    # The pager fetches one row more than it shows; the total costs one COUNT (on the created_at
    # index) only when there is more than one page, and a short list is counted without one.
    assert 0 < len(few) <= len(many) == len(more) <= 10
    assert not unbounded_counts(few)
    assert len(unbounded_counts(more)) == 1


def test_history_shows_usage_and_rating(client, user) -> None:
    make_session(user, llm_call_count=2, prompt_tokens=1000, completion_tokens=234, cost_usd="0.5", review_count=2,
                 mean_rating=4.5)
    client.force_login(user)
    page = client.get(HISTORY).content.decode()
    assert "1,234" in page and "$0.5000" in page and "4.5" in page


def test_export_link_keeps_the_current_filters(client, user) -> None:
    client.force_login(user)
    page = client.get(HISTORY, {"status": "failed", "q": "tone"}).content.decode()
    link = re.search(r'href="([^"]*)">Export these<', page)
    assert link is not None
    assert link.group(1).startswith(reverse("annotations:export") + "?")
    assert "status=failed" in link.group(1) and "q=tone" in link.group(1)
