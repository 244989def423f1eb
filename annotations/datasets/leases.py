"""Leases on sidecar validation, the same way runs have them (:mod:`annotations.runs.lease`).

A dataset job holds the project's lease for its whole life too (:func:`renew_job`): drafting its columns may
take longer than a lease before any level starts, and the sweep must not take a live job for a dead one.

Two things are validated off the request path and could be lost with the process doing them (kill -9 of a
worker or of the web server):

* a dataset job's validating phase: the project is ``validating`` while the job composes, validates and
  stores every task's sidecar. The job holds ``validation_lease_expires_at`` and ``validation_attempt``;
  only the holder of the attempt may write ``done``, so a job that lost the phase can never claim it;
* one task's sidecar asked for by a page (:func:`.results.current_sidecar`): the task holds
  ``validating_digest`` and its own ``validation_lease_expires_at`` while a background task computes it.

The process doing the work renews its lease every third of a lease (:func:`heartbeat`); a lapsed lease
means that process died, and the next ask or the sweep (:mod:`.recovery`) hands the work on.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from annotations.models import FINISHED_STATUSES, AnnotationSession, DatasetProject, DatasetTask, JobStatus
from annotations.runs.lease import TRANSIENT_DATABASE_ERRORS, lease_seconds

logger = logging.getLogger(__name__)


def deadline(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) + timedelta(seconds=lease_seconds())


def _lapsed(field: str, now: datetime) -> Q:
    return Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__lt": now})


@contextlib.contextmanager
def heartbeat(renew: Callable[[], Any], name: str = "hedit-validation-lease") -> Iterator[None]:
    """Call *renew* every third of a lease while the block runs, on a thread of its own.

    The thread closes its database connection after each renewal: it borrows one for milliseconds and
    never keeps a pool's slot (the block's own work uses its thread's connection, not a second one)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease_seconds() / 3):
            try:
                renew()
            except TRANSIENT_DATABASE_ERRORS:
                logger.warning("could not renew a lease (%s); trying again", name, exc_info=True)
            finally:
                connection.close()

    thread = threading.Thread(target=beat, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


# --- a dataset job's whole life ----------------------------------------------------------------


def renew_job(project_id: Any) -> bool:
    """A job (or the answers' drain) of the project is alive: its lease runs a full term from now.

    While the project annotates, ``validation_lease_expires_at`` is the lease of whatever works on it (a job
    drafting its columns starts no level for a while; an answered level waits for the drain): the sweep
    (:mod:`.recovery`) takes up a job, or queued levels, only once it lapsed. The validating phase keeps its
    own renewal (:func:`renew_validating`)."""
    return bool(DatasetProject.objects.filter(pk=project_id, status=JobStatus.ANNOTATING).update(
        validation_lease_expires_at=deadline()))


def job_alive(project_id: Any, now: datetime) -> bool:
    """Some process renews the project's lease: a job (or a drain, or the validating phase) lives."""
    return DatasetProject.objects.filter(pk=project_id, validation_lease_expires_at__gte=now).exists()


def take_orphans(project_id: Any, now: datetime) -> bool:
    """Take the project's lease for a new job when nobody holds it (one sweeper wins)."""
    return bool(DatasetProject.objects.filter(_lapsed("validation_lease_expires_at", now), pk=project_id,
                                              status=JobStatus.ANNOTATING).update(
        validation_lease_expires_at=deadline(now)))


# --- a dataset job's validating phase ------------------------------------------------------------


def begin_validating(project_id: Any) -> int | None:
    """Enter the validating phase for the job calling: the attempt it holds, or None.

    Only when none of the project's runs is queued or running (the last job to end validates for all), and
    the project is annotating, or validating with nobody holding the phase (its job died and the sweep
    handed it on, or its lease lapsed). One conditional UPDATE, so of several jobs ending together one wins.
    """
    now = timezone.now()
    unfinished = AnnotationSession.objects.filter(dataset_level__column__task__project=OuterRef("pk")).exclude(
        status__in=FINISHED_STATUSES)
    takeable = Q(status=JobStatus.ANNOTATING) | (Q(status=JobStatus.VALIDATING)
                                                  & _lapsed("validation_lease_expires_at", now))
    mine = DatasetProject.objects.filter(takeable, pk=project_id).exclude(Exists(unfinished))
    if not mine.update(status=JobStatus.VALIDATING, validation_attempt=F("validation_attempt") + 1,
                       validation_lease_expires_at=deadline(now)):
        return None
    return DatasetProject.objects.filter(pk=project_id).values_list("validation_attempt", flat=True).first()


def _holding(project_id: Any, attempt: int) -> Any:
    return DatasetProject.objects.filter(pk=project_id, status=JobStatus.VALIDATING, validation_attempt=attempt)


def renew_validating(project_id: Any, attempt: int) -> bool:
    """Push the phase's lease a full term ahead, and that of the project's tasks' asks (pages wait for the job
    rather than ask again); False when *attempt* no longer holds the phase."""
    held = bool(_holding(project_id, attempt).update(validation_lease_expires_at=deadline()))
    if held:
        DatasetTask.objects.filter(project_id=project_id).exclude(validating_digest="").update(
            validation_lease_expires_at=deadline())
    return held


def end_validating(project_id: Any, attempt: int, *, status: str = JobStatus.DONE, error: str = "") -> bool:
    """Write the job's outcome, if *attempt* still holds the phase (a new run queued meanwhile took it back
    to annotating: that run's job validates again)."""
    return bool(_holding(project_id, attempt).update(status=status, error=error, validation_lease_expires_at=None))


def dead_validating(now: datetime) -> Any:
    """Projects validating whose job stopped renewing the phase: its process died."""
    return DatasetProject.objects.filter(status=JobStatus.VALIDATING, validation_lease_expires_at__lt=now)


# --- one task's sidecar, asked for ---------------------------------------------------------------


def ask_task(task: DatasetTask, digest: str) -> bool:
    """Take the ask for *task*'s sidecar at *digest*: True when the caller should ask for it (nobody computes
    that digest under a live lease); the lease runs from now."""
    now = timezone.now()
    return bool(DatasetTask.objects.filter(pk=task.pk).filter(
        ~Q(validating_digest=digest) | _lapsed("validation_lease_expires_at", now)).update(
        validating_digest=digest, validation_lease_expires_at=deadline(now)))


def renew_task(task_id: Any) -> None:
    DatasetTask.objects.filter(pk=task_id).exclude(validating_digest="").update(validation_lease_expires_at=deadline())


def release_task(task_id: Any, digest: str) -> None:
    """The result for *digest* is stored: nobody computes it any more."""
    DatasetTask.objects.filter(pk=task_id, validating_digest=digest).update(validation_lease_expires_at=None)


def dead_asks(now: datetime) -> Any:
    """Tasks whose asked-for sidecar nobody computes any more (the lease lapsed, no result stored)."""
    return DatasetTask.objects.filter(validation_lease_expires_at__lt=now).exclude(validating_digest="")


__all__ = ["ask_task", "begin_validating", "dead_asks", "dead_validating", "end_validating", "heartbeat",
           "job_alive", "release_task", "renew_job", "renew_task", "renew_validating", "take_orphans"]
