"""The history filters are declared once: the filter bar, the API's parameters and the pager follow it."""

from __future__ import annotations

import re

from django.urls import reverse

from annotations.api.views import FILTER_PARAMETERS
from annotations.history.filters import FILTERS, filter_fields
from tests.portal.test_history import bulk_sessions

HISTORY = reverse("annotations:history")


def test_the_api_takes_every_declared_filter() -> None:
    assert [p.name for p in FILTER_PARAMETERS] == [f.name for f in FILTERS]


def test_the_filter_bar_shows_choices_then_dates_then_the_user() -> None:
    names = [f["name"] for f in filter_fields({}, show_user=True)]
    assert names == ["status", "valid", "schema_version", "reviewed", "verdict", "min_rating", "levels",
                     "evaluations", "date_from", "date_to", "user"]
    assert "user" not in [f["name"] for f in filter_fields({}, show_user=False)]


def test_the_history_page_marks_a_bad_filter_and_pages_with_cursor_labels(client, user) -> None:
    bulk_sessions(user, 60)
    client.force_login(user)
    page = client.get(HISTORY, {"verdict": "maybe"}).content.decode()
    assert re.search(r'class="field field--error"><label for="f-verdict">', page)
    page = client.get(HISTORY).content.decode()
    assert re.search(r'<span class="muted" id="history-count">1\u201350 of 60</span>', page)
    assert 'rel="next" href="?page=2">Older →</a>' in page
    page = client.get(HISTORY, {"page": "2"}).content.decode()
    assert 'rel="prev" href="?page=1">← Newer</a>' in page
    assert re.search(r'id="history-count">51\u201360 of 60<', page)
