"""A run's lease: the worker running it keeps it fresh; a lapsed lease means that worker is gone.

Claiming a queued run makes it ``running`` with ``lease_expires_at`` a lease ahead and ``attempt``
one higher. While it runs, every stored step and a heartbeat renew the lease, but only for the
attempt that holds it (``attempt`` and ``status`` are checked in the same UPDATE), so a worker that
lost its run (re-queued by the sweeper, cancelled, or re-run by a person) can never write to it
again: it gets :class:`LeaseLost` and stops.

A re-started run keeps what the lost attempt stored and numbers its own steps and iterations after
them (``seq_base``, ``iteration_base``): each step is stored once, and a live page's ``after`` cursor
stays valid across attempts.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F, Max, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotations.models import AnnotationSession, Iteration, SessionStatus

# Errors a database gives while it restarts, drops connections or refuses new ones ("too many
# clients"): worth waiting out, never a reason to fail a run or stop a worker.
TRANSIENT_DATABASE_ERRORS = (OperationalError, InterfaceError)


class LeaseLost(Exception):
    """This worker no longer holds the run: another attempt, a cancel or a re-run took it."""


@dataclass(frozen=True)
class Attempt:
    """Which start of a run this is, and how many steps and iterations earlier starts stored."""

    number: int = 0  # 0: not under a lease (a direct call, as in unit tests)
    seq_base: int = 0
    iteration_base: int = 0

    def seq(self, seq: int) -> int:
        return self.seq_base + seq

    def iteration(self, number: int) -> int:
        # 0 means "before the first iteration" (the vision step) and stays 0.
        return self.iteration_base + number if number else 0


NO_LEASE = Attempt()


@dataclass(frozen=True)
class Claim:
    session: AnnotationSession
    attempt: Attempt


def lease_seconds() -> float:
    return float(settings.HEDIT_RUN_LEASE_SECONDS)


def max_attempts() -> int:
    return max(1, int(settings.HEDIT_RUN_MAX_ATTEMPTS))


def _deadline(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) + timedelta(seconds=lease_seconds())


def worker_name() -> str:
    """This process, as the run's ``worker_id`` shows it."""
    return f"{socket.gethostname()}:{os.getpid()}"[:64]


def claim(session_id: Any, worker_id: str = "") -> Claim | None:
    """Take a queued run for this worker; None when another worker has it, it was cancelled or it is gone."""
    now = timezone.now()
    worker_id = worker_id or worker_name()
    with transaction.atomic():
        claimed = AnnotationSession.objects.filter(pk=session_id, status=SessionStatus.QUEUED).update(
            status=SessionStatus.RUNNING, attempt=F("attempt") + 1, lease_expires_at=_deadline(now),
            worker_id=worker_id[:64], started_at=Coalesce(F("started_at"), Value(now)))
        if not claimed:
            return None
        # The user comes along: the async caller cannot load a lazy relation.
        session = AnnotationSession.objects.select_related("user").get(pk=session_id)
        seq_base = session.steps.aggregate(last=Max("seq"))["last"] or 0
        iteration_base = Iteration.objects.filter(session_id=session_id).aggregate(last=Max("number"))["last"] or 0
    return Claim(session=session, attempt=Attempt(session.attempt, seq_base, iteration_base))


def held(session_id: Any, attempt: int) -> QuerySet[AnnotationSession]:
    """The run, if *attempt* still holds it."""
    return AnnotationSession.objects.filter(pk=session_id, attempt=attempt, status=SessionStatus.RUNNING)


def renew(session_id: Any, attempt: int) -> bool:
    """Push the lease a full term ahead; False when this attempt no longer holds the run."""
    return bool(held(session_id, attempt).update(lease_expires_at=_deadline()))


def renew_or_raise(session_id: Any, attempt: int) -> None:
    """Inside a write's transaction: renew, or refuse the write with :class:`LeaseLost`."""
    if not renew(session_id, attempt):
        raise LeaseLost(f"session {session_id} attempt {attempt} lost its lease")


def lost_runs(now: datetime | None = None) -> QuerySet[AnnotationSession]:
    """Running runs whose lease lapsed: nobody renews them, so their worker died.

    A run without a lease (started before leases existed) is not taken for lost.
    """
    return AnnotationSession.objects.filter(status=SessionStatus.RUNNING,
                                            lease_expires_at__lt=now or timezone.now())


def is_lost(session: AnnotationSession, now: datetime | None = None) -> bool:
    return (session.status == SessionStatus.RUNNING and session.lease_expires_at is not None
            and session.lease_expires_at < (now or timezone.now()))


def end_lost_run(session: AnnotationSession, status: str, error: str, *, now: datetime | None = None) -> bool:
    """Finish a lost run as *status* (for Cancel or Re-run); False if it came back to life or ended meanwhile."""
    now = now or timezone.now()
    return bool(lost_runs(now).filter(pk=session.pk, attempt=session.attempt).update(
        status=status, error=error, interrupted=status == SessionStatus.FAILED, cancel_requested=
        status == SessionStatus.CANCELLED, finished_at=now, lease_expires_at=None))
