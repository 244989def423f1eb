"""Background tasks, through Django's task interface so the backend is a setting."""

from __future__ import annotations

from django_tasks import task

from annotations.hooks import RUN_ENDED
from annotations.runs.execution import execute_session


@task()
async def run_session_task(session_id: str) -> str:
    session = await execute_session(session_id)
    if session is not None:
        # What the run belonged to goes on (a dataset job ends, an evaluation's next runs start): those
        # concerns sit above runs and register on the hook (AnnotationsConfig.ready).
        for ended in RUN_ENDED.targets():
            await ended(session)
    return session.status if session is not None else "skipped"
