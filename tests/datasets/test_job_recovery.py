"""A dataset job whose worker died (scale-out): its levels that never started are handed on, not left queued.

The job runs a project's levels a few at a time inside one worker. Levels it had started have leases of their
own and are re-run like any lost run; the ones still waiting for their turn have no lease, and nothing but
the job would ever start them.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from annotations.datasets import services
from annotations.datasets.jobs import run_dataset_job, run_dataset_task
from annotations.datasets.recovery import recover_dataset_jobs
from annotations.datasets.selectors import current_status
from annotations.models import AnnotationSession, DatasetProject, SessionStatus
from annotations.runs import lease
from annotations.runs.recovery import recover_lost_runs

pytestmark = pytest.mark.django_db(transaction=True)

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def _start(user, small_files) -> tuple[DatasetProject, DBTaskResult]:
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    services.start_annotation(project, user=user, concurrency=2)
    row = DBTaskResult.objects.get(task_path=run_dataset_task.module_path)
    row.claim("worker-that-dies")
    return project, row


def _age(row: DBTaskResult) -> None:
    """More than a lease passes since the worker took the job."""
    DBTaskResult.objects.filter(pk=row.pk).update(
        started_at=timezone.now() - timedelta(seconds=lease.lease_seconds() + 1))


def _levels(project: DatasetProject):
    return AnnotationSession.objects.filter(dataset_level__column__task__project=project)


@override_settings(TASKS=DATABASE_TASKS)
def test_levels_a_dead_job_never_started_are_queued_again_and_run(user, small_files) -> None:
    project, row = _start(user, small_files)
    levels = _levels(project)
    first, second = levels.order_by("created_at")[:2]
    long_ago = timezone.now() - timedelta(seconds=lease.lease_seconds() + 2)
    # The job finished one level and was running another when its worker was killed; three waited their turn.
    AnnotationSession.objects.filter(pk=first.pk).update(status=SessionStatus.SUCCEEDED, started_at=long_ago,
                                                         finished_at=long_ago)
    assert lease.claim(second.pk, "worker-that-dies") is not None
    AnnotationSession.objects.filter(pk=second.pk).update(started_at=long_ago, lease_expires_at=long_ago)
    assert recover_dataset_jobs() == []  # a live worker takes its job's next level within moments
    _age(row)

    # The run sweep re-runs the level that was running (it has a lease) but knows nothing of the waiting ones.
    assert recover_lost_runs().requeued == [str(second.pk)]
    handed_on = recover_dataset_jobs()
    assert handed_on == [str(project.pk)]
    assert recover_dataset_jobs() == []  # once
    rows = DBTaskResult.objects.filter(task_path=run_dataset_task.module_path)
    assert sorted(r.status for r in rows) == ["FAILED", "READY"]  # the dead worker's row closed, a new job
    new = rows.get(status="READY")
    waiting = {str(pk) for pk in levels.filter(status=SessionStatus.QUEUED).exclude(pk=second.pk)
               .values_list("pk", flat=True)}
    project_id, ids, concurrency = new.args_kwargs["args"]
    # The re-run level has a task of its own, so the new job leaves it out.
    assert (project_id, set(ids), concurrency) == (str(project.pk), waiting, 2) and len(waiting) == 3
    ids.append(str(second.pk))  # what its own task will run

    asyncio.run(run_dataset_job(project_id, ids, concurrency, use_configured_llm=False))
    assert not levels.exclude(status__in=[SessionStatus.SUCCEEDED, SessionStatus.INVALID]).exists()
    project.refresh_from_db()
    assert current_status(project) == "done"


@override_settings(TASKS=DATABASE_TASKS)
def test_a_job_with_a_level_running_under_a_live_lease_is_left_alone(user, small_files) -> None:
    project, row = _start(user, small_files)
    _age(row)
    running = _levels(project).order_by("created_at").first()
    assert lease.claim(running.pk, "worker-alive") is not None  # renewed while it runs

    assert recover_dataset_jobs() == []
    assert DBTaskResult.objects.get(pk=row.pk).status == "RUNNING"
    assert _levels(project).filter(status=SessionStatus.QUEUED).count() == 4


@override_settings(TASKS=DATABASE_TASKS)
def test_a_dead_job_whose_levels_all_ended_elsewhere_is_ended_by_a_new_one(user, small_files) -> None:
    project, row = _start(user, small_files)
    _age(row)
    # Its running levels were lost and re-run on their own (recover_lost_runs) and have all ended.
    long_ago = timezone.now() - timedelta(seconds=lease.lease_seconds() + 2)
    _levels(project).update(status=SessionStatus.SUCCEEDED, started_at=long_ago, finished_at=long_ago)

    assert recover_dataset_jobs() == [str(project.pk)]
    rows = DBTaskResult.objects.filter(task_path=run_dataset_task.module_path).order_by("enqueued_at")
    assert [r.status for r in rows] == ["FAILED", "READY"]
    assert rows[1].args_kwargs["args"] == [str(project.pk), [], 2]  # nothing to run: it only ends the job
    assert DatasetProject.objects.get(pk=project.pk).status == "annotating"  # nobody but a job writes it
    asyncio.run(run_dataset_job(str(project.pk), [], 2))
    assert DatasetProject.objects.get(pk=project.pk).status == "done"


@override_settings(TASKS=DATABASE_TASKS)
def test_every_worker_sweeps_for_dead_dataset_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.management import call_command

    from annotations.runs.worker import RunWorker

    seen: list[tuple] = []
    monkeypatch.setattr(RunWorker, "configure_signals", lambda self: None)
    monkeypatch.setattr(RunWorker, "run", lambda self: seen.append(tuple(self.sweeps)))
    from annotations.evaluation.batches import recover_evaluations

    call_command("hedit_worker", "--batch", "--nice", "0")
    assert seen == [(recover_lost_runs, recover_dataset_jobs, recover_evaluations)]
