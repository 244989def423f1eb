"""``manage.py hedit_worker``: run queued annotation runs (scale-out); start as many as you like."""

from __future__ import annotations

import os
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_tasks_db.compat import DEFAULT_TASK_BACKEND_ALIAS, DEFAULT_TASK_QUEUE_NAME, task_backends

from annotations.runs.lease import worker_name
from annotations.runs.worker import RunWorker


class Command(BaseCommand):
    help = ("Run queued annotation runs from the database queue: retries database errors with backoff and "
            "re-queues runs whose worker died. No autoreloader: stopping this process stops its work.")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--interval", type=float, default=0.5, help="seconds between polls of an empty queue")
        parser.add_argument("--batch", action="store_true", help="run what is queued, then exit")
        parser.add_argument("--max-tasks", type=int, default=None, help="exit after this many runs")
        parser.add_argument("--worker-id", default="", help="unique name (default host:pid)")
        parser.add_argument("--nice", type=int, default=10,
                            help="CPU priority to drop to (0 keeps it): runs are background work, and on a "
                                 "shared machine pages and websockets should win the CPU")
        parser.add_argument("--sweep-seconds", type=float, default=None,
                            help="how often to look for lost runs (default HEDIT_RUN_SWEEP_SECONDS; 0: never)")

    def handle(self, *, interval: float, batch: bool, max_tasks: int | None, worker_id: str,
               sweep_seconds: float | None, nice: int, **options: Any) -> None:
        from django_tasks_db import DatabaseBackend

        from annotations.datasets.recovery import recover_dataset_jobs
        from annotations.evaluation.batches import recover_evaluations
        from annotations.runs.recovery import recover_lost_runs

        if not isinstance(task_backends[DEFAULT_TASK_BACKEND_ALIAS], DatabaseBackend):
            raise CommandError("hedit_worker needs the database queue: set HEDIT_TASK_BACKEND=database")
        if interval < 0 or (max_tasks is not None and max_tasks <= 0):
            raise CommandError("--interval must be >= 0 and --max-tasks > 0")
        worker = RunWorker(
            sweep_seconds=settings.HEDIT_RUN_SWEEP_SECONDS if sweep_seconds is None else sweep_seconds,
            # Lost runs first: a dead dataset job's lost levels then have tasks of their own, not a place in the
            # new job. Evaluations whose chain of runs broke start their next runs.
            sweeps=(recover_lost_runs, recover_dataset_jobs, recover_evaluations),
            queue_names=[DEFAULT_TASK_QUEUE_NAME], interval=interval, batch=batch,
            backend_name=DEFAULT_TASK_BACKEND_ALIAS, startup_delay=False, max_tasks=max_tasks,
            worker_id=(worker_id or worker_name())[:64], excluded_queue_names=[])
        if nice > 0:
            os.nice(nice)
        worker.configure_signals()
        worker.run()
