"""Scale-out: both workers are killed with SIGKILL while runs are in flight; a new worker finishes every run,
and each step is stored once. Real processes on PostgreSQL (a database of this test's own) and Redis."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from tests.llm.fake_server import FakeOpenAI, Recorded

pytestmark = pytest.mark.scaleout

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN = os.environ.get("HEDIT_TEST_PG_ADMIN", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("HEDIT_TEST_REDIS_URL_LEASE", "redis://127.0.0.1:6379/11")
# Enough runs that both workers are still busy when the slower one has warmed up (on a loaded machine
# one worker's schema warm-up can outlast six runs of the other, and the test then never saw both mid-run).
RUNS = 12
LEASE_SECONDS = 5

CREATE_RUNS = f"""
from django.db import transaction
from annotations.runs.services import build_options, create_session, start_session
for n in range({RUNS}):
    with transaction.atomic():
        s = create_session(user=None, description=f"Stimulus {{n}}: a red circle appears left of fixation.",
                           options=build_options({{"max_validation_attempts": 2, "max_total_iterations": 3}}))
        start_session(s)
"""


def slow_answer(recorded: Recorded) -> str:
    # A model that takes a moment per call keeps each run in flight long enough to be killed mid-way.
    time.sleep(0.3)
    return '{"faithful": true}' if "faithful" in recorded.text.lower() else "Sensory-event, (Red, Circle)"


@contextlib.contextmanager
def own_database() -> Iterator[str]:
    name = f"hedit_lost_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def poll(what: str, check: Callable[[], Any], timeout: float) -> Any:
    """The first truthy value of *check*, asked every 0.1 s until *timeout*."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def rows(url: str, sql: str) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


def test_runs_survive_both_workers_killed(tmp_path: Path) -> None:
    prefix = f"hedit-lease-{uuid.uuid4().hex[:8]}"
    workers: list[subprocess.Popen] = []
    with own_database() as url, FakeOpenAI([slow_answer]) as llm:
        env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": REDIS_URL, "HEDIT_CHANNEL_PREFIX": prefix,
               "HEDIT_TASK_BACKEND": "database", "DJANGO_SETTINGS_MODULE": "hedit_site.settings",
               "HEDIT_RUN_LEASE_SECONDS": str(LEASE_SECONDS), "HEDIT_RUN_SWEEP_SECONDS": "0.5",
               "HEDIT_RUN_MAX_ATTEMPTS": "8", "HEDIT_LLM_BASE_URL": llm.base_url, "HEDIT_LLM_API_KEY": "test",
               "HEDIT_LLM_MODEL": "scripted", "HEDIT_LLM_MAX_RETRIES": "0"}
        env.pop("HEDIT_TEST_SQLITE", None)

        def manage(*args: str) -> None:
            done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=180, check=False)
            assert done.returncode == 0, done.stderr[-3000:]

        def start_worker(name: str) -> subprocess.Popen:
            log = (tmp_path / f"{name}.log").open("wb")
            process = subprocess.Popen([sys.executable, "manage.py", "hedit_worker", "--interval", "0.1"], cwd=ROOT,
                                       env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            workers.append(process)
            return process

        def logs() -> str:
            return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in tmp_path.glob("*.log"))

        try:
            manage("migrate", "--noinput")
            manage("shell", "-c", CREATE_RUNS)
            first, second = start_worker("first"), start_worker("second")
            # Both workers mid-run, each with at least one step stored.
            in_flight = poll("both workers to be mid-run", lambda: (lambda r: r if len(r) >= 2 else None)(rows(
                url, "SELECT s.id FROM annotations_annotationsession s WHERE s.status = 'running' AND EXISTS "
                     "(SELECT 1 FROM annotations_agentsteprecord a WHERE a.session_id = s.id)")), timeout=90)
            for process in (first, second):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            lost = {r[0] for r in rows(url, "SELECT id FROM annotations_annotationsession WHERE status = 'running'")}
            # Killed mid-run (one of the two may have finished in the moment before the kill): nobody will
            # finish these but a new worker.
            cut_short = {r[0] for r in in_flight} & lost
            assert cut_short, "no run was in flight when both workers were killed"
            kept = rows(url, "SELECT session_id, seq FROM annotations_agentsteprecord ORDER BY 1, 2")

            start_worker("third")
            poll("every run to finish", lambda: rows(
                url, "SELECT count(*) FROM annotations_annotationsession WHERE status IN ('queued', 'running')"
            )[0][0] == 0, timeout=120)

            statuses = rows(url, "SELECT id, status, attempt FROM annotations_annotationsession")
            assert [s for s in statuses if s[1] != "succeeded"] == [], logs()
            assert len(statuses) == RUNS
            assert all(attempt >= 2 for pk, _, attempt in statuses if pk in lost)
            steps = rows(url, "SELECT session_id, attempt, seq, agent FROM annotations_agentsteprecord ORDER BY 1, 3")
            # The lost attempts' steps stay, and every step is stored once: seq 1..n with no gap or repeat.
            assert set(kept) <= {(s[0], s[2]) for s in steps}
            for pk, *_ in statuses:
                seqs = [s[2] for s in steps if s[0] == pk]
                assert seqs == list(range(1, len(seqs) + 1)), (pk, seqs)
                final = [s for s in steps if s[0] == pk and s[1] == max(x[1] for x in steps if x[0] == pk)]
                assert final[0][3] == "annotation"  # the last attempt ran the workflow from its start
            for pk in cut_short:
                assert {s[1] for s in steps if s[0] == pk} >= {1, 2}, "the lost attempt's steps were kept"
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{logs()}") from exc
        finally:
            for process in workers:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)
            with contextlib.suppress(Exception):
                client = redis.Redis.from_url(REDIS_URL)
                keys = list(client.scan_iter(match=f"{prefix}*", count=1000))[:10_000]
                if keys:
                    client.delete(*keys)
