"""Runs whose worker died: queue them again, a bounded number of times, or end them with the reason.

``hedit_worker`` calls :func:`recover_lost_runs` every ``HEDIT_RUN_SWEEP_SECONDS``; any number of
workers may do so at once: each decision is a conditional UPDATE on the run's status, attempt and
lapsed lease, so exactly one sweeper acts on a lost run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone

from annotations.models import AnnotationSession, SessionStatus
from annotations.runs.lease import lost_runs, max_attempts
from annotations.runs.recorder import broadcast
from annotations.runs.tasks import run_session_task

logger = logging.getLogger(__name__)

SWEEP_BATCH = 100


@dataclass
class Recovery:
    requeued: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.requeued) + len(self.failed) + len(self.cancelled)


def _enqueues_in_database() -> bool:
    try:
        from django_tasks_db import DatabaseBackend
    except ImportError:  # pragma: no cover - installed with the app
        return False
    return isinstance(run_session_task.get_backend(), DatabaseBackend)


def _close_dead_task_rows(session_id: str, now: datetime) -> None:
    """The dead worker's task row says "running" for ever; say what happened instead (admin, pruning)."""
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, args_kwargs__args__0=session_id).update(
        status=TaskResultStatus.FAILED, finished_at=now, exception_class_path="annotations.runs.lease.LeaseLost",
        traceback="the worker running this task stopped; the run was handed on")


def _recover_one(session: AnnotationSession, now: datetime, recovery: Recovery) -> None:
    session_id = str(session.pk)
    mine = lost_runs(now).filter(pk=session.pk, attempt=session.attempt)
    in_database = _enqueues_in_database()
    with transaction.atomic():
        if session.cancel_requested:
            changed = mine.update(status=SessionStatus.CANCELLED, error="cancelled by the user",
                                  finished_at=now, lease_expires_at=None)
            outcome = recovery.cancelled
        elif session.attempt >= max_attempts():
            changed = mine.update(
                status=SessionStatus.FAILED, interrupted=True, finished_at=now, lease_expires_at=None,
                error=f"its worker stopped during each of {session.attempt} attempts; gave up (re-run it)")
            outcome = recovery.failed
        else:
            changed = mine.update(status=SessionStatus.QUEUED, lease_expires_at=None, worker_id="")
            outcome = recovery.requeued
            if changed:
                # With the database queue the new task row commits with the status change, so a sweeper
                # that dies in between leaves the run running-and-lost (swept again), never queued-and-orphaned.
                if in_database:
                    run_session_task.enqueue(session_id)
                else:
                    transaction.on_commit(lambda: run_session_task.enqueue(session_id))
        if changed and in_database:
            _close_dead_task_rows(session_id, now)
    if changed:
        outcome.append(session_id)


def recover_lost_runs(now: datetime | None = None) -> Recovery:
    """Hand on or end every run whose lease lapsed; returns what it did."""
    now = now or timezone.now()
    recovery = Recovery()
    for session in lost_runs(now).only("pk", "attempt", "cancel_requested")[:SWEEP_BATCH]:
        _recover_one(session, now, recovery)
    for session_id in recovery.requeued + recovery.failed + recovery.cancelled:
        async_to_sync(broadcast)(session_id, "status")
    if recovery.total:
        logger.warning("lost runs: %d queued again, %d failed, %d cancelled", len(recovery.requeued),
                       len(recovery.failed), len(recovery.cancelled))
    return recovery
