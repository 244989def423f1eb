"""An evaluation's runs, started a few at a time through the ordinary run queue.

An evaluation of 300 items does not put 300 runs in the queue at once (every run a lab starts meanwhile
would wait behind them): :func:`next_runs` stores the next items' runs while fewer than the evaluation's
``concurrency`` are unfinished, and the caller enqueues each as an ordinary run
(:func:`annotations.runs.tasks.run_session_task`, whose end calls here again). The batch row is locked while
it counts, so two ends at once never start more than their share. Each run is an ordinary run (workflow,
recorder, lease, recovery); only the start of the next ones hangs on the end of the last, and
:func:`annotations.evaluation.batches.recover_evaluations` restarts a chain a stopped process broke.

Nothing here imports the task (the task imports this): callers pass ``enqueue``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.models import FINISHED_STATUSES, AnnotationSession, EvaluationBatch, EvaluationItem

logger = logging.getLogger(__name__)


def next_runs(batch_id: Any, enqueue: Callable[[str], Any]) -> list[str]:
    """Store the runs the batch has room for and hand each to *enqueue* once committed; end the batch when every
    item's run has finished. Returns the new runs' ids (none for a cancelled or finished batch)."""
    with transaction.atomic():
        batch = EvaluationBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or batch.cancelled_at is not None or batch.finished_at is not None:
            return []
        runs = AnnotationSession.objects.filter(evaluation_batch=batch)
        unfinished = runs.exclude(status__in=FINISHED_STATUSES).count()
        waiting = (EvaluationItem.objects.filter(set_id=batch.set_id).exclude(sessions__evaluation_batch=batch)
                   .order_by("position"))
        started = [AnnotationSession.objects.create(
            user=batch.user, description=item.description, options=batch.options,
            schema_version=batch.schema_version, evaluation_batch=batch, evaluation_item=item)
            for item in waiting[: max(0, batch.concurrency - unfinished)]]
        if not started and not unfinished and not waiting.exists():
            EvaluationBatch.objects.filter(pk=batch.pk).update(finished_at=timezone.now())
            logger.info("evaluation %s finished", batch.pk)
        ids = [str(run.pk) for run in started]
        for session_id in ids:
            transaction.on_commit(lambda session_id=session_id: enqueue(session_id))
    return ids
