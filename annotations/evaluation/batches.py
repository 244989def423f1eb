"""Evaluation runs: start one (a set, a model), follow its progress, cancel it, restart a broken chain.

An evaluation is a batch of ordinary runs, tagged with it, started a few at a time
(:mod:`annotations.evaluation.queue`). Its runs count against ``HEDIT_EVALUATION_RATE`` alone. The model is
chosen by name (``offline``, a model of the user's own settings, a model the server offers) or left to the
user's current choice; the configuration it starts with is kept on the batch, and each run records its own.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from agents.llm.base import UnavailableModel
from agents.llm.configuration import ModelConfiguration, configuration_of
from agents.schema import DEFAULT_SCHEMA_VERSION
from annotations.errors import FieldError, Forbidden, sentence
from annotations.evaluation.queue import next_runs
from annotations.evaluation.sets import setting_count
from annotations.limits import check_evaluation_quota
from annotations.llm.client import run_model_for
from annotations.models import (
    FINISHED_STATUSES,
    AnnotationSession,
    EvaluationBatch,
    EvaluationSet,
    SessionStatus,
)
from annotations.runs.lease import lease_seconds
from annotations.runs.services import build_options, request_cancel
from annotations.runs.tasks import run_session_task

logger = logging.getLogger(__name__)


def concurrency() -> int:
    """``HEDIT_EVALUATION_CONCURRENCY``: runs of one evaluation at once."""
    return setting_count("HEDIT_EVALUATION_CONCURRENCY", 2)


def configuration_now(user: Any, choice: str, schema_version: str) -> tuple[ModelConfiguration, str]:
    """The configuration a run of *choice* ("" for the user's current model) would have now, and why it could
    not run ("" when it can)."""
    llm = run_model_for(user, choice)
    reason = llm.reason if isinstance(llm, UnavailableModel) else ""
    return configuration_of(llm, schema_version, model=choice), reason


def start_evaluation(evaluation_set: EvaluationSet, *, user: Any, model: str = "",
                     schema_version: str = DEFAULT_SCHEMA_VERSION, max_attempts: int = 3) -> EvaluationBatch:
    """Evaluate *evaluation_set* with *model* (a name, or "" for the user's current model): store the batch and
    queue its first runs once committed. A model that cannot run, bad options, or a spent quota raise a
    :class:`~annotations.errors.RequestError` and store nothing."""
    user = user if user is not None and user.is_authenticated else None
    options = build_options({"schema_version": schema_version, "max_validation_attempts": max_attempts})
    found, reason = configuration_now(user, model, options.schema_version)
    if reason:
        raise FieldError("model", sentence(reason))
    total = evaluation_set.items.count()
    with transaction.atomic():
        check_evaluation_quota(user, total)
        batch = EvaluationBatch.objects.create(
            set=evaluation_set, user=user, model_choice=model, provider=found.provider, model=found.model,
            constraint=found.constraint, prompt_version=found.prompt_version,
            schema_version=options.schema_version, options={**options.to_dict(), "model": model}, total=total,
            concurrency=max(1, concurrency()))
        next_runs(batch.pk, run_session_task.enqueue)
    logger.info("evaluation %s of set %s with %s started (%d items)", batch.pk, evaluation_set.pk,
                found.label, total)
    return batch


def may_cancel(user: Any, batch: EvaluationBatch) -> bool:
    """Who started it (and staff) may stop it, while it runs."""
    return batch.status == "running" and user is not None and user.is_authenticated and (
        batch.user_id == user.pk or user.is_staff)


def cancel_evaluation(batch: EvaluationBatch, user: Any) -> EvaluationBatch:
    """Stop *batch*: no run starts any more, and each unfinished one is cancelled like a run of its own."""
    if user is not None and not may_cancel(user, batch):
        raise Forbidden("Only whoever started this evaluation can cancel it, while it runs.")
    with transaction.atomic():
        EvaluationBatch.objects.filter(pk=batch.pk, cancelled_at__isnull=True, finished_at__isnull=True).update(
            cancelled_at=timezone.now())
    for run in AnnotationSession.objects.filter(evaluation_batch=batch).exclude(status__in=FINISHED_STATUSES):
        request_cancel(run)
    batch.refresh_from_db()
    logger.info("evaluation %s cancelled", batch.pk)
    return batch


async def evaluation_run_ended(session: AnnotationSession) -> None:
    """The run-ended hook (:data:`annotations.hooks.RUN_ENDED`): an evaluation's next runs start as one of its
    runs ends (a few at a time: :mod:`annotations.evaluation.queue`)."""
    if session.evaluation_batch_id is not None:
        await sync_to_async(next_runs)(session.evaluation_batch_id, run_session_task.enqueue)


def recover_at_start() -> list[str]:
    """The server-started hook (:data:`annotations.hooks.SERVER_STARTED`): every broken chain restarted at once,
    since nothing else runs yet."""
    return recover_evaluations(at_start=True)


def recover_evaluations(now: datetime | None = None, *, at_start: bool = False) -> list[str]:
    """Restart every evaluation whose chain a stopped process broke: running, with items left and no run of its
    own unfinished, its last run ended more than a lease ago (*at_start*: at once, nothing else runs yet). Safe
    beside a live chain (the batch row is locked while it counts). The embedded server calls it as it starts,
    ``hedit_worker``'s sweeper every sweep."""
    now = now or timezone.now()
    stalled = (EvaluationBatch.objects.filter(finished_at__isnull=True, cancelled_at__isnull=True)
               .annotate(open=Count("sessions", filter=~Q(sessions__status__in=FINISHED_STATUSES)))
               .filter(open=0))
    if not at_start:
        stalled = stalled.exclude(sessions__finished_at__gte=now - timedelta(seconds=lease_seconds()))
    restarted = []
    for batch_id in stalled.values_list("pk", flat=True)[:100]:
        if next_runs(batch_id, run_session_task.enqueue):
            restarted.append(str(batch_id))
    if restarted:
        logger.warning("evaluations restarted after a stop: %s", ", ".join(restarted))
    return restarted


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    running: int
    failed: int

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def progress_of(batch: EvaluationBatch) -> Progress:
    """How far *batch* is: its runs finished, running, failed (one query)."""
    counts = AnnotationSession.objects.filter(evaluation_batch=batch).aggregate(
        done=Count("pk", filter=Q(status__in=FINISHED_STATUSES)),
        running=Count("pk", filter=Q(status=SessionStatus.RUNNING)),
        failed=Count("pk", filter=Q(status=SessionStatus.FAILED)))
    return Progress(total=batch.total, done=counts["done"], running=counts["running"], failed=counts["failed"])
