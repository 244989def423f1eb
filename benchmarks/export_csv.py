"""CSV export of 100,000 sessions: wall time and peak memory.

    python benchmarks/export_csv.py [--sessions N] [--keep]

Builds its own temporary SQLite database (migrations + bulk_create), then measures the export
in a fresh child process so the seeding's memory does not hide the export's:

* time and ru_maxrss growth of ``exports.stream_csv`` written to a file (what the page, the API
  and ``manage.py export`` all run);
* the same pass under tracemalloc, for the peak of Python allocations;
* ``manage.py export --format csv --out FILE`` end to end.

Targets: <= 20 s and <= 300 MB.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 20.0
TARGET_MB = 300.0

WORDS = ("red", "green", "blue", "circle", "square", "face", "house", "tone", "beep", "button", "press", "left",
         "right", "hand", "screen", "centre", "appears", "disappears", "flashes", "participant", "fixation",
         "cross", "target", "cue", "feedback", "reward", "loud", "soft")
TAGS = ("Sensory-event", "Visual-presentation", "Auditory-presentation", "Agent-action", "Participant-response",
        "(Red, Circle)", "(Blue, Square)", "(Image, Face)", "(Press, Push-button)", "Cue", "Feedback")


def setup_django(db_path: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{db_path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hedit_site.settings")
    os.environ.setdefault("HEDIT_LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def seed(db_path: Path, count: int) -> None:
    setup_django(db_path)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from annotations.models import AnnotationSession

    call_command("migrate", verbosity=0)
    users = [get_user_model().objects.create_user(f"user{i}") for i in range(10)]
    rng = random.Random(7)
    started = time.perf_counter()
    batch = 5000
    for offset in range(0, count, batch):
        rows = []
        for i in range(offset, min(offset + batch, count)):
            reviewed = rng.random() < 0.3
            annotation = ", ".join(rng.sample(TAGS, 4))
            rows.append(AnnotationSession(
                user=users[i % len(users)], description=" ".join(rng.choices(WORDS, k=14)).capitalize(),
                schema_version="8.4.0", status="succeeded" if rng.random() < 0.8 else "invalid",
                machine_annotation=annotation, final_annotation=annotation, is_valid=rng.random() < 0.8,
                iteration_count=rng.randint(1, 5), llm_call_count=rng.randint(2, 10),
                prompt_tokens=rng.randint(500, 5000), completion_tokens=rng.randint(50, 500),
                cost_usd=rng.random() / 100, review_count=1 if reviewed else 0,
                mean_rating=rng.randint(1, 5) if reviewed else None, accept_count=int(reviewed)))
        AnnotationSession.objects.bulk_create(rows)
    print(f"seeded {count:,} sessions in {time.perf_counter() - started:.1f} s ({db_path})")


def rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(db_path: Path) -> int:
    setup_django(db_path)
    from django.core.management import call_command

    from annotations.exports.formats import stream_csv
    from annotations.models import AnnotationSession

    out = db_path.with_suffix(".csv")
    rss_before = rss_mb()
    started = time.perf_counter()
    rows = 0
    with out.open("w", encoding="utf-8", newline="") as fh:
        for chunk in stream_csv(AnnotationSession.objects.all()):
            fh.write(chunk)
            rows += chunk.count("\n")
    seconds = time.perf_counter() - started
    rss_growth = rss_mb() - rss_before
    size_mb = out.stat().st_size / 2**20
    print(f"stream_csv:      {rows - 1:,} rows, {size_mb:.1f} MB in {seconds:.2f} s; "
          f"ru_maxrss {rss_before:.0f} -> {rss_mb():.0f} MB (+{rss_growth:.1f} MB)")

    tracemalloc.start()
    traced_started = time.perf_counter()
    with out.open("w", encoding="utf-8", newline="") as fh:
        for chunk in stream_csv(AnnotationSession.objects.all()):
            fh.write(chunk)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"tracemalloc:     peak {peak / 2**20:.1f} MB of Python allocations "
          f"(pass took {time.perf_counter() - traced_started:.2f} s with tracing)")

    command_started = time.perf_counter()
    call_command("export", "--format", "csv", "--out", str(out))
    command_seconds = time.perf_counter() - command_started
    print(f"manage.py export --format csv: {command_seconds:.2f} s")

    ok = seconds <= TARGET_SECONDS and command_seconds <= TARGET_SECONDS and max(
        rss_growth, peak / 2**20) <= TARGET_MB
    print(f"targets (<= {TARGET_SECONDS:.0f} s, <= {TARGET_MB:.0f} MB): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--keep", action="store_true", help="keep the temporary database")
    parser.add_argument("--seed", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed:
        seed(args.seed, args.sessions)
        return 0
    if args.measure:
        return measure(args.measure)
    tmp = Path(tempfile.mkdtemp(prefix="hedit-bench-"))
    try:
        db_path = tmp / "bench.sqlite3"
        # Seeding and measuring in separate processes: each starts from its own memory baseline.
        subprocess.run([sys.executable, __file__, "--seed", str(db_path), "--sessions", str(args.sessions)],
                       check=True)
        return subprocess.run([sys.executable, __file__, "--measure", str(db_path)], check=False).returncode
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
