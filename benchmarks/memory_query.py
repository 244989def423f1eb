"""How long a run spends choosing its examples from the portal's memory.

    .venv/bin/python benchmarks/memory_query.py [--reviewed 10000] [--unreviewed 10000] [--runs 20]

Builds a temporary SQLite database (or uses ``DATABASE_URL`` if set: point it at an empty
database), bulk-creates *reviewed* sessions (half accepted by a reviewer, half corrected) and
*unreviewed* ones created after them (the worst case: the newest runs are the unreviewed ones), then
times :func:`annotations.runs.memory.memory_candidates` (the query: the newest 2,000 remembered
annotations of the run's schema version) and :func:`annotations.runs.memory.examples_for` (query
plus ``agents.memory.most_similar``), wall clock and this process's CPU time, and prints the
database's query plan.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ["red", "green", "blue", "circle", "square", "tone", "beep", "left", "right", "screen", "appears",
         "disappears", "press", "button", "target", "cue", "face", "house", "fixation", "cross"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reviewed", type=int, default=10_000)
    parser.add_argument("--unreviewed", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="hedit-memory-query-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(tmp.name) / 'bench.sqlite3'}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hedit_site.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from annotations.models import AnnotationSession, Review, Revision
    from annotations.runs.memory import examples_for, memory_candidates, remembered_sessions

    call_command("migrate", verbosity=0)
    users = get_user_model()
    owner, reviewer = users.objects.create_user("owner"), users.objects.create_user("reviewer")
    rng = random.Random(7)
    total = args.reviewed + args.unreviewed
    AnnotationSession.objects.bulk_create(
        (AnnotationSession(user=owner, description=" ".join(rng.choice(WORDS) for _ in range(8)) + f" {i}",
                           schema_version="8.4.0", status="succeeded", is_valid=True,
                           machine_annotation="Sensory-event, Visual-presentation",
                           final_annotation="Sensory-event, Visual-presentation, (Red, Circle)",
                           accept_count=int(i < args.reviewed and i % 2 == 0),
                           review_count=int(i < args.reviewed and i % 2 == 0))
         for i in range(total)), batch_size=1000)
    ordered = list(AnnotationSession.objects.order_by("created_at", "pk").values_list("pk", "accept_count"))
    reviewed = ordered[:args.reviewed]
    Review.objects.bulk_create((Review(session_id=pk, reviewer=reviewer, rating=5, verdict="accept")
                                for pk, accepted in reviewed if accepted), batch_size=1000)
    Revision.objects.bulk_create((Revision(session_id=pk, author=reviewer, before="", after="x", is_valid=True)
                                  for pk, accepted in reviewed if not accepted), batch_size=1000)
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("ANALYZE")
    probe = AnnotationSession(description="A red circle appears on the left of the screen", schema_version="8.4.0")
    print(f"{connection.vendor}: {remembered_sessions('8.4.0').count()} remembered of {total} sessions "
          f"(the {args.unreviewed} unreviewed are the newest)")
    for name, call in (("memory_candidates (query)", lambda: memory_candidates("8.4.0")),
                       ("examples_for (query + most_similar)", lambda: examples_for(probe))):
        wall, cpu = [], []
        for _ in range(args.runs):
            w, c = time.perf_counter(), time.process_time()
            call()
            wall.append((time.perf_counter() - w) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        p95 = sorted(wall)[max(0, int(0.95 * len(wall)) - 1)]
        print(f"{name:38} wall median {statistics.median(wall):6.1f} ms  p95 {p95:6.1f}"
              f"  cpu median {statistics.median(cpu):6.1f} ms")
    sql, params = remembered_sessions("8.4.0").values_list("pk", "description", "final_annotation")[:2000] \
        .query.sql_with_params()
    with connection.cursor() as cur:
        cur.execute(("EXPLAIN " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN ") + sql, params)
        print("plan:", *(" ".join(str(c) for c in row) for row in cur.fetchall()), sep="\n  ")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
