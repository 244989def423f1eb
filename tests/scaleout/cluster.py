"""Real scale-out processes for the worker-death tests: a PostgreSQL database of the test's own, Redis under a
prefix of its own, a slow scripted model, `hedit_worker` processes that can be killed with SIGKILL."""

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
import redis

from tests.support.fake_openai import FakeOpenAI, Recorded, Reply

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN = os.environ.get("HEDIT_TEST_PG_ADMIN", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("HEDIT_TEST_REDIS_URL_LEASE", "redis://127.0.0.1:6379/11")
LEASE_SECONDS = 5


def slow_answer(recorded: Recorded) -> str | Reply:
    # A model that takes a moment per call keeps each run in flight long enough to be killed mid-way. It
    # cannot write a dataset column in one request (unavailable for those), so each level's run asks it.
    if "one column of a BIDS events file" in recorded.text:
        return Reply(status=503, error={"message": "column requests are not served here"})
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


class Cluster:
    """The processes of one test; `kill` stands in for a machine dying under a worker."""

    def __init__(self, url: str, llm_url: str, logs: Path) -> None:
        self.url = url
        self.logs_dir = logs
        self.prefix = f"hedit-lease-{uuid.uuid4().hex[:8]}"
        self.workers: list[subprocess.Popen] = []
        self.env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": REDIS_URL, "HEDIT_CHANNEL_PREFIX": self.prefix,
                    "HEDIT_TASK_BACKEND": "database", "DJANGO_SETTINGS_MODULE": "hedit_site.settings",
                    "HEDIT_RUN_LEASE_SECONDS": str(LEASE_SECONDS), "HEDIT_RUN_SWEEP_SECONDS": "0.5",
                    "HEDIT_RUN_MAX_ATTEMPTS": "8", "HEDIT_LLM_BASE_URL": llm_url, "HEDIT_LLM_API_KEY": "test",
                    "HEDIT_LLM_MODEL": "scripted", "HEDIT_LLM_MAX_RETRIES": "0"}
        self.env.pop("HEDIT_TEST_SQLITE", None)

    def manage(self, *args: str) -> None:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=180, check=False)
        assert done.returncode == 0, done.stderr[-3000:]

    def start_worker(self, name: str) -> subprocess.Popen:
        log = (self.logs_dir / f"{name}.log").open("wb")
        process = subprocess.Popen([sys.executable, "manage.py", "hedit_worker", "--interval", "0.1"], cwd=ROOT,
                                   env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.workers.append(process)
        return process

    @staticmethod
    def kill(process: subprocess.Popen) -> None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def rows(self, sql: str) -> list[tuple]:
        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute(sql).fetchall()

    def stored_steps(self) -> list[tuple]:
        """(session, seq) of every stored step."""
        return self.rows("SELECT session_id, seq FROM annotations_agentsteprecord ORDER BY 1, 2")

    def wait_until_every_run_ends(self, timeout: float = 120) -> None:
        poll("every run to end", lambda: self.rows(
            "SELECT count(*) FROM annotations_annotationsession WHERE status IN ('queued', 'running')")[0][0] == 0,
            timeout=timeout)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in self.logs_dir.glob("*.log"))

    def stop(self) -> None:
        for process in self.workers:
            if process.poll() is None:
                self.kill(process)
        with contextlib.suppress(Exception):
            client = redis.Redis.from_url(REDIS_URL)
            keys = list(client.scan_iter(match=f"{self.prefix}*", count=1000))[:10_000]
            if keys:
                client.delete(*keys)


@contextlib.contextmanager
def cluster(logs: Path) -> Iterator[Cluster]:
    """A migrated database and a slow model; every worker started is killed and Redis cleaned on the way out."""
    with own_database() as url, FakeOpenAI([slow_answer]) as llm:
        running = Cluster(url, llm.base_url, logs)
        try:
            running.manage("migrate", "--noinput")
            yield running
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{running.logs()}") from exc
        finally:
            running.stop()
