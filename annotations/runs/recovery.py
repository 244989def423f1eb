"""Runs whose worker died: queue them again, a bounded number of times, or end them with the reason.

``hedit_worker`` calls :func:`recover_lost_runs` every ``HEDIT_RUN_SWEEP_SECONDS``; any number of
workers may do so at once: each decision is a conditional UPDATE on the run's status, attempt and
lapsed lease, so exactly one sweeper acts on a lost run.

A worker can also die between taking a run's task from the queue and taking the run itself: the run
is still ``queued``, but its only task row says a dead worker has it. Such a row, older than a
lease, is closed and the run queued again (:func:`_requeue_orphans`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone

from annotations.models import FINISHED_STATUSES, AnnotationSession, SessionStatus
from annotations.runs.broadcasts import broadcast
from annotations.runs.lease import lease_seconds, lost_runs, max_attempts
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


def close_dead_task_rows(rows: Any, now: datetime, why: str) -> int:
    """A dead worker's task rows say "running" for ever; say what happened instead (admin, pruning).

    Only rows still running are closed, so of several sweepers exactly one gets the count."""
    from django_tasks_db.compat import TaskResultStatus

    return rows.filter(status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.FAILED, finished_at=now, exception_class_path="annotations.runs.lease.LeaseLost",
        traceback=why)


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
            from django_tasks_db.models import DBTaskResult

            close_dead_task_rows(DBTaskResult.objects.filter(args_kwargs__args__0=session_id), now,
                                 "the worker running this task stopped; the run was handed on")
    if changed:
        outcome.append(session_id)


def _requeue_orphans(now: datetime, recovery: Recovery) -> None:
    """Queue again the queued runs whose task a worker took more than a lease ago and never started."""
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    # A live worker takes the run milliseconds after its task; a lease later, that worker is gone.
    stale = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, task_path=run_session_task.module_path,
                                        started_at__lt=now - timedelta(seconds=lease_seconds()))
    for row in stale.only("pk", "args_kwargs")[:SWEEP_BATCH]:
        args = (row.args_kwargs or {}).get("args") or []
        if not args:
            continue
        session_id = str(args[0])
        with transaction.atomic():
            if not AnnotationSession.objects.filter(pk=session_id, status=SessionStatus.QUEUED).exists():
                continue  # the run started (it has a lease of its own) or ended: not an orphan
            # Conditional on the row still being taken, so exactly one sweeper queues the run again.
            if not close_dead_task_rows(DBTaskResult.objects.filter(pk=row.pk), now,
                                        "the worker that took this task stopped before it started the run; "
                                        "queued again"):
                continue
            if not DBTaskResult.objects.filter(status=TaskResultStatus.READY, args_kwargs__args__0=session_id).exists():
                run_session_task.enqueue(session_id)
        recovery.requeued.append(session_id)


def recover_lost_runs(now: datetime | None = None) -> Recovery:
    """Hand on or end every run whose lease lapsed; returns what it did."""
    now = now or timezone.now()
    recovery = Recovery()
    for session in lost_runs(now).only("pk", "attempt", "cancel_requested")[:SWEEP_BATCH]:
        _recover_one(session, now, recovery)
    if _enqueues_in_database():
        _requeue_orphans(now, recovery)
    for session_id in recovery.requeued + recovery.failed + recovery.cancelled:
        async_to_sync(broadcast)(session_id, "status")
    if recovery.total:
        logger.warning("lost runs: %d queued again, %d failed, %d cancelled", len(recovery.requeued),
                       len(recovery.failed), len(recovery.cancelled))
    return recovery


def resume_cut_off_runs(now: datetime | None = None) -> Recovery:
    """At start-up of the embedded server, whose own process runs the runs: a stop cut off every run that
    was queued or running, so each is queued again.

    A running one starts a new attempt (what it stored stays, as after a worker's death), up to
    ``HEDIT_RUN_MAX_ATTEMPTS`` starts in all: a run that brought the server down each time ends
    ``failed`` instead of doing it again. A run whose cancel was asked ends cancelled. The server's loop
    is not running yet, so these start on the task backend's threads (their broadcasts still go out on the
    server's loop: :func:`annotations.runs.runtime.on_server_loop`).
    """
    now = now or timezone.now()
    recovery = Recovery()
    cut_off = AnnotationSession.objects.exclude(status__in=FINISHED_STATUSES)
    with transaction.atomic():
        recovery.cancelled = [str(pk) for pk in cut_off.filter(cancel_requested=True).values_list("pk", flat=True)]
        cut_off.filter(pk__in=recovery.cancelled).update(
            status=SessionStatus.CANCELLED, error="cancelled by the user", finished_at=now, lease_expires_at=None)
        spent = cut_off.filter(status=SessionStatus.RUNNING, attempt__gte=max_attempts())
        recovery.failed = [str(pk) for pk in spent.values_list("pk", flat=True)]
        spent.update(status=SessionStatus.FAILED, interrupted=True, finished_at=now, lease_expires_at=None,
                     error="the server stopped during each of its attempts; gave up (re-run it)")
        cut_off.filter(status=SessionStatus.RUNNING).update(status=SessionStatus.QUEUED, lease_expires_at=None,
                                                            worker_id="")
        recovery.requeued = [str(pk) for pk in cut_off.filter(status=SessionStatus.QUEUED).order_by(
            "created_at").values_list("pk", flat=True)]
    for session_id in recovery.requeued:
        run_session_task.enqueue(session_id)
    if recovery.total:
        logger.warning("runs cut off by the last stop: %d queued again, %d failed, %d cancelled",
                       len(recovery.requeued), len(recovery.failed), len(recovery.cancelled))
    return recovery
