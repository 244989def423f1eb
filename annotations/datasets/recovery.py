"""Dataset jobs whose worker died (scale-out): hand their waiting levels on to a new job.

A job runs its project's levels a few at a time in one worker. The levels it started hold leases, so
:func:`annotations.runs.recovery.recover_lost_runs` re-runs them like any lost run; the levels still
waiting for their turn hold nothing, and only the job would ever start them. A live job renews the
project's lease, and has a level running under a fresh lease or started or ended one moments ago: a job
row taken more than a lease ago with none of that is dead. ``hedit_worker``'s sweeper calls
:func:`recover_dataset_jobs`.

A job holds the project's lease for its whole life (:func:`.leases.renew_job`): a job drafting its columns
for longer than a lease is alive. Queued level runs that nothing will start (the answers' drain that noted
them died with its process) are handed to a new job once the project's lease lapsed
(:func:`recover_orphaned_levels`).

Validation has leases too (:mod:`.leases`): a job that died in its validating phase, and a task's sidecar
whose computation died, are handed on once their lease lapses (:func:`recover_validation`), so the project
ends ``done`` with its sidecars stored and a page's "validating" ends within a lease.
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
from annotations.datasets.leases import dead_asks, dead_validating, job_alive, take_orphans
from annotations.datasets.results import validate_sidecar_task
from annotations.models import AnnotationSession, DatasetProject, JobStatus, SessionStatus, SidecarResult
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
        if job_alive(project_id, now) or _is_alive(AnnotationSession.objects.filter(pk__in=session_ids), now):
            continue
        with transaction.atomic():
            if not close_dead_task_rows(DBTaskResult.objects.filter(pk=row.pk), now,
                                        "the worker running this dataset job stopped; its waiting levels were "
                                        "handed on to a new job"):
                continue
            waiting = _waiting(session_ids)
            # With nothing waiting the new job only ends the old one: validating, then done (a job that died
            # validating is handed on by recover_validation, once its phase's lease lapsed).
            if waiting or DatasetProject.objects.filter(pk=project_id, status=JobStatus.ANNOTATING).exists():
                run_dataset_task.enqueue(project_id, waiting, concurrency)
        handed_on.append(project_id)
        logger.warning("dataset %s: its job's worker died; %d waiting level(s) handed on", project_id, len(waiting))
    return handed_on + recover_validation(now) + recover_orphaned_levels(now)


def _orphans(now: datetime) -> dict[str, list[str]]:
    """Queued level runs nothing will start, by project: queued more than a lease ago, no task row of their
    own or of a job, and the project's lease lapsed (the answers' drain that noted them died with its process)."""
    old = now - timedelta(seconds=lease_seconds())
    queued = (AnnotationSession.objects.filter(status=SessionStatus.QUEUED, dataset_level__isnull=False,
                                               created_at__lt=old,
                                               dataset_level__column__task__project__status=JobStatus.ANNOTATING)
              .filter(Q(dataset_level__column__task__project__validation_lease_expires_at__isnull=True)
                      | Q(dataset_level__column__task__project__validation_lease_expires_at__lt=now))
              .order_by("created_at").values_list("pk", "dataset_level__column__task__project_id")[:SWEEP_BATCH])
    by_project: dict[str, list[str]] = {}
    for pk, project_id in queued:
        by_project.setdefault(str(project_id), []).append(str(pk))
    for project_id, session_ids in list(by_project.items()):
        owned = set(session_ids) - set(_waiting(session_ids))  # those with a run task of their own
        for args in _live_job_rows(project_id).values_list("args_kwargs__args", flat=True):
            owned |= {str(pk) for pk in (args[1] if isinstance(args, list) and len(args) == 3 else [])}
        by_project[project_id] = [pk for pk in session_ids if pk not in owned]
    return {project_id: waiting for project_id, waiting in by_project.items() if waiting}


def recover_orphaned_levels(now: datetime | None = None) -> list[str]:
    """Queue a job for each project's orphaned level runs (:func:`_orphans`); one sweeper wins each project
    (it takes the project's lease in the same transaction). Returns the projects acted on."""
    now = now or timezone.now()
    acted = []
    for project_id, waiting in _orphans(now).items():
        with transaction.atomic():
            if not take_orphans(project_id, now):
                continue
            concurrency = DatasetProject.objects.filter(pk=project_id).values_list("concurrency", flat=True).first()
            run_dataset_task.enqueue(project_id, waiting, concurrency or 1)
        acted.append(project_id)
        logger.warning("dataset %s: %d queued level run(s) had nobody to start them; a job runs them", project_id,
                       len(waiting))
    return acted


def _live_job_rows(project_id: str) -> QuerySet[DBTaskResult]:
    return DBTaskResult.objects.filter(task_path=run_dataset_task.module_path, args_kwargs__args__0=project_id,
                                       status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING])


def _hand_on_phase(project: DatasetProject, now: datetime) -> bool:
    """A job died validating: the phase is freed (one sweeper wins) and a new job ends it."""
    project_id = str(project.pk)
    with transaction.atomic():
        if not dead_validating(now).filter(pk=project.pk, validation_attempt=project.validation_attempt).update(
                validation_lease_expires_at=None):
            return False
        close_dead_task_rows(_live_job_rows(project_id).filter(started_at__lt=now - timedelta(
            seconds=lease_seconds())), now, "the worker validating this job's sidecars stopped; handed on")
        run_dataset_task.enqueue(project_id, [], project.concurrency)
    logger.warning("dataset %s: its job died while validating; handed on", project_id)
    return True


def _hand_on_ask(task_id: int, project_id: str, digest: str, now: datetime) -> bool:
    """A task's sidecar computation died: asked for again unless its result is stored meanwhile."""
    with transaction.atomic():
        stored = SidecarResult.objects.filter(task_id=task_id, digest=digest).exists()
        mine = dead_asks(now).filter(pk=task_id, validating_digest=digest)
        if stored:
            mine.update(validation_lease_expires_at=None)
            return False
        if not mine.update(validation_lease_expires_at=now + timedelta(seconds=lease_seconds())):
            return False
        rows = DBTaskResult.objects.filter(task_path=validate_sidecar_task.module_path,
                                           args_kwargs__args__0=project_id, args_kwargs__args__1=task_id)
        close_dead_task_rows(rows, now, "the worker validating this sidecar stopped; asked for again")
        if rows.filter(status=TaskResultStatus.READY).exists():
            return False  # still waiting for a worker: its lease starts again, no second ask
        validate_sidecar_task.enqueue(project_id, task_id)
    logger.warning("dataset %s: the computation of task %s's sidecar died; asked for again", project_id, task_id)
    return True


def recover_validation(now: datetime | None = None) -> list[str]:
    """Hand on each validation whose lease lapsed: a job's validating phase, a task's asked-for sidecar.

    Returns the projects acted on."""
    now = now or timezone.now()
    acted = [str(p.pk) for p in dead_validating(now).only("pk", "validation_attempt", "concurrency")[:SWEEP_BATCH]
             if _hand_on_phase(p, now)]
    for task_id, project_id, digest in dead_asks(now).values_list("pk", "project_id", "validating_digest")[
            :SWEEP_BATCH]:
        if _hand_on_ask(task_id, str(project_id), digest, now):
            acted.append(str(project_id))
    return acted


def resume_cut_off_validation() -> list[str]:
    """At start-up of the embedded server, whose own process ran the jobs: a job the stop cut off while it
    validated (no sweeper runs there) is started again to end it. Returns the projects."""
    cut_off = DatasetProject.objects.filter(status=JobStatus.VALIDATING)
    projects = list(cut_off.values_list("pk", "concurrency"))
    cut_off.update(validation_lease_expires_at=None)  # nobody holds the phase: the process holding it stopped
    for pk, concurrency in projects:
        run_dataset_task.enqueue(str(pk), [], concurrency)
    if projects:
        logger.warning("%d dataset job(s) cut off while validating; started again", len(projects))
    return [str(pk) for pk, _ in projects]
