"""How fast is a dataset project's page with 8 tasks and 1,000 levels (issue 27: 5.7 s, 42,405 px tall)?

Builds a throwaway SQLite database in a temporary directory, imports a made-up dataset of ``--tasks`` tasks
sharing ``--levels`` categorical levels (two columns a task), gives every level a finished valid run, stores
each task's validated sidecar (``results.refresh_project``: hedtools, once), then requests the project page
through Django's test client as its owner, ``--requests`` times, and prints the median and max latency, the
SQL queries and the size of the page. ``--panels`` also times each task's quality panel (the page loads them
after itself). Exits 1 when the page's median is over ``--target`` (1 s).

    .venv/bin/python benchmarks/project_page.py [--tasks 8] [--levels 1000] [--requests 10] [--panels] [--profile]

``--profile`` prints cProfile's functions (``BENCH_SORT=tottime``, ``BENCH_TOP=40`` to choose).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ANNOTATIONS = ("Sensory-event, Visual-presentation", "Agent-action, Participant-response",
               "Sensory-event, Auditory-presentation", "Experiment-structure")


def setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "hedit_site.settings"
    os.environ["DJANGO_DEBUG"] = "0"  # production templates, no query log
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("HEDIT_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def dataset_files(tasks: int, levels: int) -> list[tuple[str, bytes]]:
    """*tasks* tasks, each with a sidecar declaring its share of *levels* over two columns and one events file
    using every level once."""
    files: list[tuple[str, bytes]] = [("dataset_description.json", json.dumps(
        {"Name": "project page benchmark", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}).encode())]
    per_task = levels // tasks
    for t in range(tasks):
        name = f"bench{t + 1}"
        shapes = [f"shape{i:03d}" for i in range(per_task - per_task // 5)]
        keys = [f"key{i:02d}" for i in range(per_task // 5)]
        sidecar = {"shape": {"Description": "The shape shown.", "Levels": {v: f"A {v} is shown." for v in shapes}},
                   "key": {"Description": "The key pressed.", "Levels": {v: f"The {v} is pressed." for v in keys}}}
        rows = ["onset\tduration\tshape\tkey"]
        for i in range(max(len(shapes), len(keys))):
            rows.append(f"{i * 2.0:.1f}\t0.5\t{shapes[i % len(shapes)]}\t{keys[i % len(keys)]}")
        files.append((f"task-{name}_events.json", json.dumps(sidecar).encode()))
        files.append((f"sub-01/eeg/sub-01_task-{name}_events.tsv", ("\n".join(rows) + "\n").encode()))
    return files


def build(tasks: int, levels: int) -> tuple[object, object]:
    from django.contrib.auth import get_user_model

    from annotations.datasets import services
    from annotations.datasets.results import refresh_project
    from annotations.models import AnnotationSession, DatasetLevel
    from bidsdata.archive import read_uploads

    user = get_user_model().objects.create_user("bench", password="bench-only-password")
    project = services.import_dataset(user=user, files=read_uploads(dataset_files(tasks, levels)),
                                      name="bench.zip", schema_version="8.4.0")
    runs = []
    for i, level in enumerate(DatasetLevel.objects.filter(column__task__project=project).order_by("pk")):
        hed = ANNOTATIONS[i % len(ANNOTATIONS)]
        runs.append(AnnotationSession(user=user, description=level.description or level.value,
                                      schema_version=project.schema_version, status="succeeded", is_valid=True,
                                      machine_annotation=hed, final_annotation=hed, dataset_level=level))
    AnnotationSession.objects.bulk_create(runs, batch_size=500)
    started = time.perf_counter()
    refresh_project(project)  # each task's sidecar validated and stored, as the job's last step leaves it
    print(f"built: {project.tasks.count()} tasks, {len(runs)} levels with a run each, "
          f"sidecars stored in {time.perf_counter() - started:.1f} s")
    return user, project


def timed(client: object, url: str, requests: int) -> tuple[list[float], int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries, size = [], 0, 0
    for _ in range(requests):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url)  # type: ignore[attr-defined]
            times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
        queries, size = len(captured.captured_queries), len(response.content)
    return times, queries, size


def report(label: str, times: list[float], queries: int, size: int) -> float:
    median = statistics.median(times)
    print(f"{label:<28} median {median * 1000:7.1f} ms  max {max(times) * 1000:7.1f} ms  "
          f"{queries:3d} queries  {size / 1024:7.1f} KiB")
    return median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--levels", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--target", type=float, default=1.0, help="seconds: the page's median must be under it")
    parser.add_argument("--panels", action="store_true", help="time each task's quality panel too")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions for one request")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="hedit_project_page_"))
    try:
        setup_django(folder / "bench.sqlite3")
        from django.core.management import call_command
        from django.test import Client

        call_command("migrate", verbosity=0)
        user, project = build(args.tasks, args.levels)
        client = Client()
        client.force_login(user)
        url = project.get_absolute_url()  # type: ignore[attr-defined]
        client.get(url)  # once for what a process caches (schemas, templates)
        median = report("project page", *timed(client, url, args.requests))
        if args.panels:
            for task in project.tasks.order_by("name"):  # type: ignore[attr-defined]
                report(f"quality panel {task.name}", *timed(client, f"{url}tasks/{task.name}/quality/",
                                                            max(1, args.requests // 2)))
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(client.get, url)
            stats = pstats.Stats(profiler).sort_stats(os.environ.get("BENCH_SORT", "cumulative"))
            stats.print_stats(int(os.environ.get("BENCH_TOP", "30")))
        if median > args.target:
            print(f"FAIL: the page's median {median:.2f} s is over {args.target} s")
            return 1
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
