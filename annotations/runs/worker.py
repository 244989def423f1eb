"""The scale-out worker behind ``manage.py hedit_worker``: django-tasks-db's queue, made durable.

Two things the stock ``db_worker`` lacks:

* it exits on the first database error that is not a lock ("too many clients", a restart, a dropped
  connection); this one waits with exponential backoff and carries on;
* nothing notices a run whose worker died; each of these workers sweeps for lapsed run leases
  (:mod:`annotations.runs.recovery`) on a thread of its own, so a lost run starts again elsewhere.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.db import close_old_connections, connections
from django.db.utils import OperationalError
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from annotations.runs.lease import TRANSIENT_DATABASE_ERRORS
from annotations.runs.recovery import recover_lost_runs
from annotations.runs.startup import warm_up_schema as _warm_up_schema

logger = logging.getLogger(__name__)


@dataclass
class Backoff:
    """Waits that double from *initial* up to *maximum* seconds, with up to 25% jitter so workers spread out."""

    initial: float = 0.5
    maximum: float = 30.0
    failures: int = 0
    jitter: Callable[[], float] = field(default=random.random)

    def next_delay(self) -> float:
        delay = min(self.maximum, self.initial * 2 ** self.failures)
        self.failures += 1
        return delay * (1 + 0.25 * self.jitter())

    def reset(self) -> None:
        self.failures = 0


def _drop_connections() -> None:
    # A broken connection stays broken; the next query opens a fresh one.
    for conn in connections.all(initialized_only=True):
        try:
            conn.close()
        except Exception:
            logger.debug("closing a broken connection failed", exc_info=True)


def warm_up() -> None:
    """Load the default schema and the model client before taking a run.

    The first run in a fresh process would otherwise spend seconds importing hedtools and the
    client while holding its lease, and a short lease could lapse before the first heartbeat.
    """
    _warm_up_schema(settings.HEDIT_DEFAULT_SCHEMA)
    try:
        import agents.llm.openai_model  # noqa: F401 - imported for its side effect: paid once, here
    except ImportError:
        logger.debug("no OpenAI client to warm up", exc_info=True)


Sweep = Callable[[], object]


class Sweeper(threading.Thread):
    """Every *interval* seconds, hands on or ends runs whose lease lapsed (and whatever else *sweeps* recover)."""

    def __init__(self, interval: float, sweeps: Sequence[Sweep] = (recover_lost_runs,)) -> None:
        super().__init__(name="hedit-sweeper", daemon=True)
        self.interval = interval
        self.sweeps = tuple(sweeps)
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            try:
                for sweep in self.sweeps:
                    sweep()
            except TRANSIENT_DATABASE_ERRORS:
                logger.warning("sweep skipped: the database is unavailable", exc_info=True)
            except Exception:
                logger.exception("sweep failed")
            finally:
                _drop_connections()

    def stop(self) -> None:
        self._stop_event.set()


class RunWorker(Worker):
    """django-tasks-db's worker loop, retrying transient database errors instead of exiting."""

    def __init__(self, *, sweep_seconds: float, sweeps: Sequence[Sweep] = (recover_lost_runs,),
                 backoff: Backoff | None = None, sleep: Callable[[float], None] = time.sleep,
                 **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.sweep_seconds = sweep_seconds
        self.sweeps = sweeps
        self.backoff = backoff or Backoff()
        self.sleep = sleep

    def _next_task(self) -> tuple[DBTaskResult | None, bool]:
        """Claim the next ready task: (task or None, whether the queue was actually read)."""
        close_old_connections()
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        with exclusive_transaction(tasks.db):
            try:
                task_result = tasks.get_locked()
                if task_result is not None:
                    task_result.claim(self.worker_id)
            except OperationalError as exc:
                if is_locked_database_exception(exc):  # SQLite busy: it unlocks soon
                    return None, False
                raise
        return task_result, True

    def run(self) -> None:
        logger.info("worker %s started (sweeping every %.0f s)", self.worker_id, self.sweep_seconds)
        warm_up()
        sweeper = Sweeper(self.sweep_seconds, self.sweeps) if self.sweep_seconds > 0 else None
        if sweeper is not None:
            sweeper.start()
        try:
            self._loop()
        finally:
            if sweeper is not None:
                sweeper.stop()

    def _loop(self) -> None:
        while self.running:
            try:
                task_result, read = self._next_task()
                if task_result is not None:
                    # A run's own database errors end in its lease lapsing (see execution); an error
                    # recording the task's outcome comes out of here and is waited out below.
                    self.run_task(task_result)
                self.backoff.reset()
            except TRANSIENT_DATABASE_ERRORS as exc:
                delay = self.backoff.next_delay()
                logger.warning("database unavailable (%s); retrying in %.1f s",
                               str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__, delay)
                _drop_connections()
                self.sleep(delay)
                continue
            if self.batch and read and task_result is None:
                logger.info("no more tasks for worker %s; exiting", self.worker_id)
                return
            if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                logger.info("worker %s ran its %d tasks; exiting", self.worker_id, self._run_tasks)
                return
            close_old_connections()
            if self.running and task_result is None:
                self.sleep(self.interval)
