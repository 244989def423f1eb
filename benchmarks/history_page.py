"""How fast is the history page with 100,000 (or 1,000,000) sessions?

Creates its own database (SQLite in a temporary directory, or with ``--database postgres`` a
PostgreSQL database ``hedit_bench_<pid>`` that it drops afterwards), fills it (bulk_create on SQLite,
COPY on PostgreSQL), then requests the page through Django's test client as a reviewer (who sees
every session, the worst case) and as an ordinary user, and prints median and p95 latency and SQL
queries per page.

    python benchmarks/history_page.py [--sessions 100000] [--requests 50] [--keep]
    python benchmarks/history_page.py --database postgres --sessions 1000000

PostgreSQL: ``--pg-url`` (or ``HEDIT_BENCH_PG``, default ``postgres://postgres@127.0.0.1:5432/postgres``)
is the server and a database to connect to while creating and dropping the benchmark's own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVENTS = [
    ("A red circle appears at the centre of the screen", "Sensory-event, Visual-presentation, (Red, Circle)"),
    ("A 500 Hz tone plays for 200 ms", "Sensory-event, Auditory-presentation, (Tone, Frequency/500 Hz)"),
    ("The participant presses the left button", "Agent-action, Participant-response, (Press, (Left, Button))"),
    ("A fixation cross is shown", "Sensory-event, Visual-presentation, (Cross, Fixation-point)"),
    ("The trial ends and feedback is displayed", "Experiment-structure, Feedback, Visual-presentation"),
    ("A face image flashes briefly on the left", "Sensory-event, Visual-presentation, (Face, Image)"),
    ("The participant blinks", "Agent-action, (Experiment-participant, Blink)"),
    ("A green square appears as the target", "Sensory-event, Target, (Green, Square)"),
]
RARE = "xylophone"  # in about 1 description in 1000: the search must scan nearly everything


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "hedit_site.settings"
    # Production settings: no DEBUG query log, no debug templates.
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("HEDIT_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def generate(total: int, users: list) -> object:
    """The varying fields of each session, the same sequence for both databases (seeded)."""
    rng = random.Random(42)
    statuses = ["succeeded"] * 8 + ["invalid", "failed"]
    start = dt.datetime.now(dt.UTC) - dt.timedelta(days=365)
    step = dt.timedelta(days=365) / total
    for i in range(total):
        text, hed = rng.choice(EVENTS)
        if rng.random() < 0.001:
            text += f" while a {RARE} plays"
        status = rng.choice(statuses)
        reviews = rng.choice([0, 0, 0, 1, 2])
        yield dict(
            user_id=rng.choice(users).pk, description=f"{text} (trial {i})",
            schema_version=rng.choice(["8.3.0", "8.4.0"]), status=status, is_valid=status == "succeeded",
            machine_annotation=hed, final_annotation=hed, created_at=start + step * i,
            iteration_count=rng.randint(1, 3), llm_call_count=rng.randint(2, 8),
            prompt_tokens=rng.randint(500, 5000), completion_tokens=rng.randint(20, 400),
            cost_usd=round(rng.random() / 100, 6), review_count=reviews,
            mean_rating=rng.randint(1, 5) if reviews else None, accept_count=1 if reviews else 0)


OPTIONS = {"schema_version": "8.4.0", "max_validation_attempts": 3}


def insert_bulk_create(total: int, users: list) -> None:
    from annotations.models import AnnotationSession

    field = AnnotationSession._meta.get_field("created_at")
    field.auto_now_add = False  # spread creation times over a year instead of "now"
    batch: list[AnnotationSession] = []
    for values in generate(total, users):
        batch.append(AnnotationSession(options=OPTIONS, **values))
        if len(batch) == 5000:
            AnnotationSession.objects.bulk_create(batch)
            batch = []
    AnnotationSession.objects.bulk_create(batch)
    field.auto_now_add = True


def insert_copy(total: int, users: list) -> None:
    """PostgreSQL: one COPY of every column (defaults taken once from an unsaved session)."""
    import json

    from django.db import connection, transaction

    from annotations.models import AnnotationSession

    fields = [f for f in AnnotationSession._meta.concrete_fields]
    template = AnnotationSession(options=OPTIONS)
    defaults = {}
    for f in fields:
        value = getattr(template, f.attname)
        defaults[f.attname] = json.dumps(value) if isinstance(value, dict | list) else (
            str(value) if f.attname == "image" else value)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    names = [f.attname for f in fields]
    table = AnnotationSession._meta.db_table
    with (transaction.atomic(), connection.cursor() as cursor,
          cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy):
        for values in generate(total, users):
            row = {**defaults, **values, "id": uuid.uuid4()}
            copy.write_row([row[name] for name in names])


def populate(total: int, vendor: str) -> None:
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import connection

    from annotations.access import REVIEWER_GROUP

    call_command("migrate", verbosity=0)
    users = [User(username=f"user{i}") for i in range(20)]
    for u in users:
        u.set_unusable_password()
    User.objects.bulk_create(users)
    users = list(User.objects.order_by("id"))
    reviewer = User.objects.create(username="reviewer")
    reviewer.groups.add(Group.objects.get_or_create(name=REVIEWER_GROUP)[0])

    started = time.perf_counter()
    if vendor == "postgresql":
        # Load without the history indexes of migration 0007, then build them as that migration does
        # on an existing history: faster than keeping three trigram indexes up to date row by row, and
        # it times the migration on a table of this size.
        import importlib

        indexes = importlib.import_module("annotations.migrations.0007_history_search_indexes")
        with connection.schema_editor(atomic=False) as editor:
            indexes.drop_indexes(None, editor)
        insert_copy(total, users)
        print(f"created {total:,} sessions in {time.perf_counter() - started:.1f} s")
        built = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '256MB'")
        with connection.schema_editor(atomic=False) as editor:
            indexes.create_indexes(None, editor)
        with connection.cursor() as cursor:
            cursor.execute("RESET maintenance_work_mem")
            # What autovacuum does to an insert-only table (PostgreSQL 13+): statistics, and the
            # visibility map that lets deep pages read the (created_at, id) index alone.
            cursor.execute("VACUUM ANALYZE")
            cursor.execute("SELECT pg_size_pretty(sum(pg_relation_size(indexrelid))) FROM pg_index "
                           "JOIN pg_class c ON c.oid = indexrelid WHERE c.relname LIKE 'session_%%trgm_idx'")
            trigram_size = cursor.fetchone()[0]
        print(f"built the history indexes (migration 0007) in {time.perf_counter() - built:.1f} s; "
              f"trigram indexes {trigram_size}")
    else:
        insert_bulk_create(total, users)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(f"created {total:,} sessions in {time.perf_counter() - started:.1f} s")


def older_link(username: str, params: dict[str, str]) -> dict[str, str]:
    """The query of the "Older" link on the page *params* shows (with its cursor on a deep page)."""
    import html
    import re
    from urllib.parse import parse_qsl

    from django.contrib.auth.models import User
    from django.test import Client

    client = Client()
    client.force_login(User.objects.get(username=username))
    found = re.search(r'rel="next" href="\?([^"]*)"', client.get("/sessions/", params).content.decode())
    assert found, params
    return dict(parse_qsl(html.unescape(found.group(1))))


def measure(username: str, label: str, params: dict[str, str], requests: int) -> dict[str, float]:
    from django.contrib.auth.models import User
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(User.objects.get(username=username))
    response = client.get("/sessions/", params)  # warm-up (templates, caches)
    assert response.status_code == 200, (label, response.status_code)
    # The request_started signal resets the query log, so start from an empty one or nothing is captured.
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        client.get("/sessions/", params)
    queries = len(ctx.captured_queries)  # now: the next request empties the log again
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        response = client.get("/sessions/", params)
        times.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200
    times.sort()
    rows = response.content.decode().count("<tr data-session=")
    result = {"median": statistics.median(times), "p95": times[max(0, round(0.95 * len(times)) - 1)],
              "queries": queries, "rows": rows}
    print(f"{label:<40} median {result['median']:7.1f} ms   p95 {result['p95']:7.1f} ms   "
          f"{result['queries']} queries   {rows} rows")
    return result


def pg_database(admin_url: str, name: str, *, create: bool) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')
        else:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-url", default=os.environ.get("HEDIT_BENCH_PG",
                                                           "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--target", type=float, default=100.0, help="exit 1 when a p95 is over this (ms)")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="hedit-bench-"))
    pg_name = f"hedit_bench_{os.getpid()}"
    if args.database == "postgres":
        pg_database(args.pg_url, pg_name, create=True)
        url = urlunsplit(urlsplit(args.pg_url)._replace(path=f"/{pg_name}"))
        where = f"PostgreSQL database {pg_name}"
    else:
        url = f"sqlite:///{workdir / 'bench.sqlite3'}"
        where = f"SQLite at {workdir}"
    try:
        setup_django(url)
        from django.db import connection

        populate(args.sessions, connection.vendor)
        deep = max(1, args.sessions // 50 // 2)  # the middle of the whole history
        cases = [
            ("reviewer", "page 1 (reviewer, all sessions)", {}),
            ("reviewer", f"deep page {deep} by number (OFFSET)", {"page": str(deep)}),
            # How the pager reaches it: the "Older" link of the page before carries a cursor.
            ("reviewer", f"deep page {deep} from the Older link", older_link("reviewer", {"page": str(deep - 1)})
             if deep > 1 else {}),
            ("reviewer", "search 'button'", {"q": "button"}),
            ("reviewer", f"search '{RARE}' (rare)", {"q": RARE}),
            ("reviewer", "filter status=failed", {"status": "failed"}),
            ("reviewer", "filter schema+valid+date range", {"schema_version": "8.3.0", "valid": "valid",
                                                            "date_from": (dt.date.today() - dt.timedelta(days=90))
                                                            .isoformat()}),
            ("reviewer", "filter reviewed+verdict+rating", {"reviewed": "reviewed", "verdict": "accept",
                                                            "min_rating": "4"}),
            ("reviewer", "200 per page", {"per_page": "200"}),
            ("user3", "page 1 (one user's sessions)", {}),
            ("user3", "deep page 50 (one user)", {"page": "50"}),
        ]
        print(f"\n{args.requests} requests each; {where}")
        results = [measure(user, label, params, args.requests) for user, label, params in cases]
        worst = max(r["p95"] for r in results)
        print(f"\nworst p95: {worst:.1f} ms (target <= {args.target:.0f} ms); queries per page: "
              f"{sorted({r['queries'] for r in results})}")
        return 0 if worst <= args.target else 1
    finally:
        if args.database == "postgres":
            from django.db import connections

            connections.close_all()
            if args.keep:
                print(f"kept {where} ({url})")
            else:
                pg_database(args.pg_url, pg_name, create=False)
        if args.keep and args.database == "sqlite":
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
