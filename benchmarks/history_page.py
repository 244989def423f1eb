"""How fast is the history page with 100,000 sessions?

Creates its own SQLite database in a temporary directory, fills it with bulk_create, then
requests the page through Django's test client as a reviewer (who sees every session, the
worst case) and as an ordinary user, and prints median and p95 latency and SQL queries per page.

    python benchmarks/history_page.py [--sessions 100000] [--requests 50] [--keep]
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
from pathlib import Path

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


def setup_django(db_path: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{db_path}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "hedit_site.settings"
    # Production settings: no DEBUG query log, no debug templates.
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("HEDIT_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def populate(total: int) -> None:
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from annotations.models import AnnotationSession

    call_command("migrate", verbosity=0)
    users = [User(username=f"user{i}") for i in range(20)]
    for u in users:
        u.set_unusable_password()
    User.objects.bulk_create(users)
    users = list(User.objects.order_by("id"))
    reviewer = User.objects.create(username="reviewer")
    reviewer.groups.add(Group.objects.get_or_create(name="reviewers")[0])

    rng = random.Random(42)
    statuses = ["succeeded"] * 8 + ["invalid", "failed"]
    field = AnnotationSession._meta.get_field("created_at")
    field.auto_now_add = False  # spread creation times over a year instead of "now"
    start = dt.datetime.now(dt.UTC) - dt.timedelta(days=365)
    step = dt.timedelta(days=365) / total
    started = time.perf_counter()
    batch: list[AnnotationSession] = []
    for i in range(total):
        text, hed = rng.choice(EVENTS)
        if rng.random() < 0.001:
            text += f" while a {RARE} plays"
        status = rng.choice(statuses)
        reviews = rng.choice([0, 0, 0, 1, 2])
        batch.append(AnnotationSession(
            user=rng.choice(users), description=f"{text} (trial {i})", schema_version=rng.choice(["8.3.0", "8.4.0"]),
            status=status, is_valid=status == "succeeded", machine_annotation=hed, final_annotation=hed,
            options={"schema_version": "8.4.0", "max_validation_attempts": 3}, created_at=start + step * i,
            iteration_count=rng.randint(1, 3), llm_call_count=rng.randint(2, 8),
            prompt_tokens=rng.randint(500, 5000), completion_tokens=rng.randint(20, 400),
            cost_usd=round(rng.random() / 100, 6), review_count=reviews,
            mean_rating=rng.randint(1, 5) if reviews else None, accept_count=1 if reviews else 0))
        if len(batch) == 5000:
            AnnotationSession.objects.bulk_create(batch)
            batch = []
    AnnotationSession.objects.bulk_create(batch)
    field.auto_now_add = True
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"created {total:,} sessions in {time.perf_counter() - started:.1f} s")


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
    print(f"{label:<34} median {result['median']:7.1f} ms   p95 {result['p95']:7.1f} ms   "
          f"{result['queries']} queries   {rows} rows")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--keep", action="store_true", help="keep the database directory")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="hedit-bench-"))
    try:
        setup_django(workdir / "bench.sqlite3")
        populate(args.sessions)
        deep = max(1, args.sessions // 50 // 2)  # the middle of the whole history
        cases = [
            ("reviewer", "page 1 (reviewer, all sessions)", {}),
            ("reviewer", f"deep page {deep}", {"page": str(deep)}),
            ("reviewer", "search 'button'", {"q": "button"}),
            ("reviewer", f"search '{RARE}' (rare, full scan)", {"q": RARE}),
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
        print(f"\n{args.requests} requests each; SQLite at {workdir}")
        results = [measure(user, label, params, args.requests) for user, label, params in cases]
        worst = max(r["p95"] for r in results)
        print(f"\nworst p95: {worst:.1f} ms (target <= 150 ms); queries per page: "
              f"{sorted({r['queries'] for r in results})}")
        return 0 if worst <= 150 else 1
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
