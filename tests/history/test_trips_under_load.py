"""The history page's trips to the database: under load each trip costs the page far more than its query (it
waits for the interpreter lock on the way back), so page 1 is read in one trip with the counts it needs, and
elsewhere a total that needs a COUNT shares its trip with the hidden dataset-level runs' count
(benchmarks/README.md, "History under load")."""

from __future__ import annotations

import re

import pytest
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.datasets import services
from annotations.history.pager import counts
from annotations.models import AnnotationSession, DatasetLevel
from tests.history.test_level_runs import level_runs, rows, small_files  # noqa: F401 - fixtures
from tests.portal.test_history import bulk_sessions, unbounded_counts

pytestmark = pytest.mark.django_db

HISTORY = reverse("annotations:history")
TABLE = AnnotationSession._meta.db_table


def history_trips(client, params: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """The page and the queries it made on the runs' table (the login's own queries aside)."""
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(HISTORY, params or {})
    assert response.status_code == 200
    return response.content.decode(), [q["sql"] for q in ctx.captured_queries if TABLE in q["sql"]]


def test_page_one_and_its_totals_take_one_trip(client, user, level_runs):  # noqa: F811
    bulk_sessions(user, 60)
    client.force_login(user)
    page, trips = history_trips(client)
    assert len(trips) == 1, trips  # the page's rows, with the total and the hidden runs' count
    assert "1\u201350 of 60" in page and 'id="hidden-level-runs">5 dataset-level runs hidden' in page
    assert len(rows(page)) == 50
    # A deep page still finds its keys on the index first, then reads only its rows.
    page, trips = history_trips(client, {"page": "2"})
    assert "51\u201360 of 60" in page and len(rows(page)) == 10
    assert len(trips) == 3, trips  # keys, rows, hidden runs (the total is known from the last page)


def test_a_short_history_takes_one_trip(client, user, level_runs):  # noqa: F811
    bulk_sessions(user, 7)
    client.force_login(user)
    page, trips = history_trips(client)
    assert "1\u20137 of 7" in page and 'id="hidden-level-runs">5 dataset-level runs hidden' in page
    assert len(trips) == 1, trips


def test_a_reviewers_page_one_counts_the_hidden_runs_with_its_rows(client, reviewer, user, level_runs):  # noqa: F811
    bulk_sessions(user, 7)
    client.force_login(reviewer)
    page, trips = history_trips(client)
    assert "1\u20137 of 7" in page and 'id="hidden-level-runs">5 dataset-level runs hidden' in page
    assert len(trips) == 1, trips
    assert not unbounded_counts(trips)  # the short list is counted as it is read
    # An empty page has no row to carry the counts: they take a trip of their own, and still say what is hidden.
    page, trips = history_trips(client, {"status": "failed"})
    assert "0 runs" in page and len(trips) == 2, trips


def test_counts_share_one_trip_and_keep_their_limits(user, small_files):  # noqa: F811
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    services.create_level_sessions(project, list(DatasetLevel.objects.filter(column__task__project=project)),
                                   user=user)
    bulk_sessions(user, 12)
    plain = AnnotationSession.objects.filter(dataset_level__isnull=True)
    of_levels = AnnotationSession.objects.filter(dataset_level__isnull=False)
    with CaptureQueriesContext(connection) as ctx:
        assert counts((plain, None), (of_levels, 3), (of_levels, None)) == [12, 3, 5]
    assert len(ctx.captured_queries) == 1
    assert re.search(r"LIMIT 3\b", ctx.captured_queries[0]["sql"])
