"""Background tasks, through Django's task interface so the backend is a setting."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django_tasks import task

from annotations.datasets.jobs import finish_job
from annotations.evaluation.queue import next_runs
from annotations.models import DatasetLevel
from annotations.runs.execution import execute_session


def _project_of(level_id: int) -> object:
    return DatasetLevel.objects.filter(pk=level_id).values_list("column__task__project_id", flat=True).first()


@task()
async def run_session_task(session_id: str) -> str:
    session = await execute_session(session_id)
    if session is not None and session.dataset_level_id is not None:
        # A dataset level's run re-run on its own (its job's worker died): if it is the project's last, it
        # ends the job (validating, then done) as the job would have.
        project_id = await sync_to_async(_project_of)(session.dataset_level_id)
        if project_id is not None:
            await finish_job(project_id)
    if session is not None and session.evaluation_batch_id is not None:
        # An evaluation's next run starts as this one ends (a few at a time: annotations.evaluation.queue).
        await sync_to_async(next_runs)(session.evaluation_batch_id, run_session_task.enqueue)
    return session.status if session is not None else "skipped"
