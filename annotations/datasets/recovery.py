"""Dataset jobs whose worker died (scale-out): hand their waiting levels on to a new job.

A job runs its project's levels a few at a time in one worker. The levels it started hold leases, so
:func:`annotations.runs.recovery.recover_lost_runs` re-runs them like any lost run; the levels still
waiting for their turn hold nothing, and only the job would ever start them. A live job always has a
level running under a fresh lease, or started or ended one moments ago: a job row taken more than a
lease ago with none of that is dead. ``hedit_worker``'s sweeper calls :func:`recover_dataset_jobs`.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from annotations.datasets.jobs import run_dataset_task
from annotations.models import AnnotationSession, SessionStatus
from annotations.runs.lease import lease_seconds
from annotations.runs.recovery import SWEEP_BATCH, close_dead_task_rows
from annotations.runs.tasks import run_session_task

logger = logging.getLogger(__name__)


def _is_alive(levels: QuerySet[AnnotationSession], now: datetime) -> bool:
    recent = now - timedelta(seconds=lease_seconds())
    return levels.filter(Q(status=SessionStatus.RUNNING, lease_expires_at__gte=now) | Q(started_at__gte=recent)
                         | Q(finished_at__gte=recent)).exists()


def _waiting(session_ids: list[str]) -> list[str]:
    """The job's levels still queued that no task of their own will start (a lost level re-run has one)."""
    queued = [str(pk) for pk in AnnotationSession.objects.filter(pk__in=session_ids, status=SessionStatus.QUEUED)
              .order_by("created_at").values_list("pk", flat=True)]
    owned = set(DBTaskResult.objects.filter(
        task_path=run_session_task.module_path, args_kwargs__args__0__in=queued,
        status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]).values_list("args_kwargs__args__0", flat=True))
    return [pk for pk in queued if pk not in owned]


def recover_dataset_jobs(now: datetime | None = None) -> list[str]:
    """Close every dead dataset job's task row and queue a new job for its waiting levels.

    Returns the projects acted on. Closing the row is conditional on it still being taken, so of several
    sweepers exactly one queues the new job, in the same transaction.
    """
    now = now or timezone.now()
    stale = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, task_path=run_dataset_task.module_path,
                                        started_at__lt=now - timedelta(seconds=lease_seconds()))
    handed_on: list[str] = []
    for row in stale.only("pk", "args_kwargs")[:SWEEP_BATCH]:
        args = (row.args_kwargs or {}).get("args") or []
        if len(args) != 3:
            continue
        project_id, session_ids, concurrency = str(args[0]), [str(pk) for pk in args[1]], args[2]
        if _is_alive(AnnotationSession.objects.filter(pk__in=session_ids), now):
            continue
        with transaction.atomic():
            if not close_dead_task_rows(DBTaskResult.objects.filter(pk=row.pk), now,
                                        "the worker running this dataset job stopped; its waiting levels were "
                                        "handed on to a new job"):
                continue
            waiting = _waiting(session_ids)
            if waiting:
                run_dataset_task.enqueue(project_id, waiting, concurrency)
        handed_on.append(project_id)
        logger.warning("dataset %s: its job's worker died; %d waiting level(s) handed on", project_id, len(waiting))
    return handed_on
