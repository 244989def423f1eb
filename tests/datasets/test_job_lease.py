"""A dataset job holds the project's lease for its whole life, and answered levels outlive their drain
(issue 25 follow-ups): the sweep never takes a live job for a dead one (drafting the columns starts no level
for a while), and levels an answer queued are run by a job when the process draining them died."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from annotations.datasets import answers, jobs, services
from annotations.datasets.leases import renew_job
from annotations.datasets.question_answers import answer_everywhere
from annotations.datasets.recovery import recover_dataset_jobs
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, JobStatus, SessionStatus
from annotations.runs import lease

pytestmark = pytest.mark.django_db(transaction=True)

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def _long_ago() -> Any:
    return timezone.now() - timedelta(seconds=lease.lease_seconds() + 1)


@override_settings(TASKS=DATABASE_TASKS)
def test_a_job_drafting_longer_than_a_lease_is_alive_to_the_sweep(user, small_files, monkeypatch) -> None:
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    sessions = services.start_annotation(project, user=user, concurrency=2)
    row = DBTaskResult.objects.get(task_path=jobs.run_dataset_task.module_path)
    row.claim("a-live-worker")
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=_long_ago())  # taken more than a lease ago
    swept: list[list[str]] = []

    async def drafting(*_: Any, **__: Any) -> dict:
        swept.append(await sync_to_async(recover_dataset_jobs)())  # no level started yet, the job drafts
        return {}

    async def run(session_id: str, **_: Any) -> None:
        await AnnotationSession.objects.filter(pk=session_id).aupdate(status=SessionStatus.SUCCEEDED)

    monkeypatch.setattr(jobs, "column_drafts", drafting)
    monkeypatch.setattr(jobs, "execute_session", run)
    monkeypatch.setattr(jobs, "store_current", lambda project: None)
    asyncio.run(jobs.run_dataset_job(str(project.pk), [str(s.pk) for s in sessions], 2))
    assert swept == [[]], "the sweep took the live job for a dead one"
    assert DBTaskResult.objects.get(pk=row.pk).status == "RUNNING"
    assert DatasetProject.objects.get(pk=project.pk).status == JobStatus.DONE


@override_settings(TASKS=DATABASE_TASKS)
def test_a_job_whose_lease_lapsed_is_handed_on(user, small_files) -> None:
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    services.start_annotation(project, user=user, concurrency=2)
    row = DBTaskResult.objects.get(task_path=jobs.run_dataset_task.module_path)
    row.claim("a-worker-that-dies")
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=_long_ago())
    assert renew_job(project.pk)
    assert recover_dataset_jobs() == []  # its heartbeat renews the lease
    DatasetProject.objects.filter(pk=project.pk).update(validation_lease_expires_at=_long_ago())
    assert recover_dataset_jobs() == [str(project.pk)]


@override_settings(TASKS=DATABASE_TASKS)
def test_answered_levels_whose_drain_died_are_run_by_a_job(user, small_files, monkeypatch) -> None:
    monkeypatch.setattr(answers, "launch", lambda project_id: None)  # the process dies before draining
    answers.reset()
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    level = DatasetLevel.objects.filter(column__task__project=project).order_by("pk").first()
    [session] = answer_everywhere(project, user=user, answer="A made-up meaning of the level.", level=level)
    assert session.status == SessionStatus.QUEUED
    jobs_rows = DBTaskResult.objects.filter(task_path=jobs.run_dataset_task.module_path)
    assert recover_dataset_jobs() == [] and not jobs_rows.exists()  # just answered: its drain may be on its way
    AnnotationSession.objects.filter(pk=session.pk).update(created_at=_long_ago())
    assert renew_job(project.pk)
    assert recover_dataset_jobs() == []  # a drain holds the project's lease: it will run the level
    DatasetProject.objects.filter(pk=project.pk).update(validation_lease_expires_at=_long_ago())
    assert recover_dataset_jobs() == [str(project.pk)]
    assert recover_dataset_jobs() == []  # once: the new job owns the level
    [row] = jobs_rows
    assert row.status == "READY" and row.args_kwargs["args"][:2] == [str(project.pk), [str(session.pk)]]
    asyncio.run(jobs.run_dataset_job(*row.args_kwargs["args"], use_configured_llm=False))
    session.refresh_from_db()
    assert session.status == SessionStatus.SUCCEEDED and session.final_annotation
    assert DatasetProject.objects.get(pk=project.pk).status == JobStatus.DONE
