"""Background tasks, through Django's task interface so the backend is a setting."""

from __future__ import annotations

from django_tasks import task

from annotations.runs.execution import execute_session


@task()
async def run_session_task(session_id: str) -> str:
    session = await execute_session(session_id)
    return session.status if session is not None else "skipped"
