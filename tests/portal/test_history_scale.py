"""History at scale on PostgreSQL: the search and deep-page indexes (migration 0007) and an estimated
total for page 1 of a large history.  Speed itself is measured by benchmarks/history_page.py."""

from __future__ import annotations

import importlib
import re

import pytest
from django.core.management import call_command
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.history.filters import filter_sessions
from annotations.history.pager import about, estimated_rows
from annotations.models import AnnotationSession
from tests.portal.test_history import bulk_sessions, unbounded_counts

HISTORY = reverse("annotations:history")
DASH = "\u2013"
TABLE = AnnotationSession._meta.db_table
MIGRATION = importlib.import_module("annotations.migrations.0007_history_search_indexes")

postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only")


def searched_columns() -> set[str]:
    """The columns the history search compares with icontains, read from the SQL it runs."""
    qs, errors = filter_sessions(AnnotationSession.objects.all(), {"q": "xylophone"})
    assert errors == {}
    sql = str(qs.query)
    if connection.vendor == "postgresql":
        return set(re.findall(rf'UPPER\("{TABLE}"\."(\w+)"::text\) LIKE UPPER', sql))
    return set(re.findall(rf'"{TABLE}"\."(\w+)" LIKE', sql))


def index_definitions() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", [TABLE])
        return dict(cursor.fetchall())


def test_the_migration_indexes_exactly_the_searched_columns() -> None:
    assert searched_columns() == {"description", "final_annotation", "machine_annotation"}
    assert set(MIGRATION.SEARCHED_COLUMNS) == searched_columns()


@postgresql_only
@pytest.mark.django_db
def test_trigram_and_deep_page_indexes_exist_on_postgresql() -> None:
    indexes = index_definitions()
    for column in searched_columns():
        definition = indexes.get(f"session_{column}_trgm_idx", "")
        # The expression icontains compares (UPPER(col::text)), or the planner never uses the index.
        assert "USING gin (upper(" in definition and f"{column}" in definition, (column, definition)
        assert "gin_trgm_ops" in definition
    assert indexes["session_created_id_idx"].endswith("(created_at DESC, id)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        assert cursor.fetchone() is not None
        cursor.execute("SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                       "WHERE c.relname LIKE 'session_%%' AND NOT i.indisvalid")
        assert cursor.fetchone()[0] == 0


@postgresql_only
@pytest.mark.django_db
def test_the_history_search_can_use_the_trigram_indexes(user) -> None:
    bulk_sessions(user, 20)
    qs, _ = filter_sessions(AnnotationSession.objects.all(), {"q": "xylophone"})
    sql, params = qs.order_by().values_list("pk", "created_at").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a 20-row table would be scanned otherwise
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    for column in searched_columns():
        assert f"session_{column}_trgm_idx" in plan, plan


@pytest.mark.skipif(connection.vendor == "postgresql", reason="SQLite: the migration changes nothing")
@pytest.mark.django_db
def test_sqlite_gets_none_of_the_postgresql_indexes() -> None:
    with connection.cursor() as cursor:
        names = set(connection.introspection.get_constraints(cursor, TABLE))
    assert not names & set(MIGRATION.INDEXES)


@pytest.mark.django_db(transaction=True)
def test_the_migration_is_reversible() -> None:
    try:
        call_command("migrate", "annotations", "0006_drop_bids_assignment", verbosity=0)
        if connection.vendor == "postgresql":
            assert not set(index_definitions()) & set(MIGRATION.INDEXES)
    finally:
        call_command("migrate", "annotations", verbosity=0)
    if connection.vendor == "postgresql":
        assert set(MIGRATION.INDEXES) <= set(index_definitions())


def test_estimates_are_rounded_so_they_do_not_read_as_counts() -> None:
    assert about(999_874) == 1_000_000 and about(1_234_567) == 1_230_000 and about(80) == 80


@pytest.mark.django_db
def test_estimated_rows_only_on_postgresql(user) -> None:
    bulk_sessions(user, 12)
    if connection.vendor != "postgresql":
        assert estimated_rows(AnnotationSession) is None
        return
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {TABLE}")
    assert estimated_rows(AnnotationSession) == 12


def count_queries(client, params: dict[str, str]) -> tuple[str, list[str]]:
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(HISTORY, params).content.decode()
    return page, unbounded_counts([q["sql"] for q in ctx.captured_queries])


@postgresql_only
@pytest.mark.django_db
def test_a_large_unfiltered_history_shows_an_estimate_not_a_count(client, reviewer, user, monkeypatch) -> None:
    monkeypatch.setattr("annotations.history.views.ESTIMATE_ABOVE", 30)
    bulk_sessions(user, 80)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {TABLE}")  # what autovacuum does on a real table
    client.force_login(reviewer)
    page, counts = count_queries(client, {})
    assert f"1{DASH}50 of about 80" in page
    assert counts == []  # no COUNT(*) over the whole table
    # The last page knows its end: exact again.
    page, _ = count_queries(client, {"page": "2"})
    assert f"51{DASH}80 of 80" in page and "about" not in page.split('id="history-count"')[1][:80]
    # Filters on an index still count exactly (one COUNT), and so does one user's own history.
    page, counts = count_queries(client, {"status": "queued"})
    assert f"1{DASH}50 of 80" in page and len(counts) == 1
    client.force_login(user)
    page, counts = count_queries(client, {})
    assert f"1{DASH}50 of 80" in page and len(counts) == 1


@pytest.mark.django_db
def test_a_small_or_sqlite_history_is_counted_exactly(client, reviewer, user, monkeypatch) -> None:
    bulk_sessions(user, 80)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {TABLE}")
    else:  # SQLite has no estimate: even a low threshold counts
        monkeypatch.setattr("annotations.history.views.ESTIMATE_ABOVE", 30)
    client.force_login(reviewer)
    page, counts = count_queries(client, {})
    assert f"1{DASH}50 of 80" in page and "about" not in page.split('id="history-count"')[1][:80]
    assert len(counts) == 1
