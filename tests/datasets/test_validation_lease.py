"""A sidecar asked for by a page is computed under a lease: asked once while a live process computes it, asked
again within a lease once that process died (it used to wait 600 s), and handed on by the sweep."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.core import checks
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from annotations.datasets import results, services
from annotations.datasets.recovery import recover_validation
from annotations.datasets.selectors import level_states
from annotations.datasets.sidecars import task_digest
from annotations.models import AnnotationSession, DatasetLevel, DatasetTask, SessionStatus, SidecarResult
from annotations.runs.lease import lease_seconds

pytestmark = pytest.mark.django_db(transaction=True)

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
HED = "Sensory-event, Experimental-stimulus, Visual-presentation"


@pytest.fixture
def project(user, small_files):
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation=HED, machine_annotation=HED)
    return project


@pytest.fixture
def asked(monkeypatch):
    found: list[tuple] = []

    class Spy:
        module_path = results.validate_sidecar_task.module_path

        def enqueue(self, *args: Any) -> None:
            found.append(args)

    monkeypatch.setattr(results, "validate_sidecar_task", Spy())
    return found


def _digest(project: Any, task: DatasetTask) -> str:
    return task_digest(project, task, level_states(project, task=task.name))


def _lapse(task: DatasetTask) -> None:
    """The process computing the sidecar died: nobody renews its lease, which runs out."""
    DatasetTask.objects.filter(pk=task.pk).update(
        validation_lease_expires_at=timezone.now() - timedelta(seconds=1))


def test_asked_once_while_computed_and_again_once_its_computation_died(project, asked,
                                                                        django_capture_on_commit_callbacks) -> None:
    task = project.tasks.get()
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            assert results.current_sidecar(project, task).pending
    assert asked == [(str(project.pk), task.pk)]  # once while its lease is live

    _lapse(task)  # killed mid-way: it used to be asked again only after ASK_AGAIN_SECONDS (600 s)
    with django_capture_on_commit_callbacks(execute=True):
        results.current_sidecar(project, task)
        results.current_sidecar(project, task)
    assert asked == [(str(project.pk), task.pk)] * 2


def test_the_computing_process_keeps_the_lease_fresh_and_releases_it(project, monkeypatch) -> None:
    task = project.tasks.get()
    assert results.current_sidecar(project, task, ask=False).pending
    renewed = threading.Event()
    compute = results.refresh_sidecar

    def slow(*args: Any, **kwargs: Any) -> Any:
        first = DatasetTask.objects.get(pk=task.pk).validation_lease_expires_at
        # The heartbeat renews every third of a lease: wait (bounded) until it has, as a long validation would.
        for _ in range(100):
            if DatasetTask.objects.get(pk=task.pk).validation_lease_expires_at > first:
                renewed.set()
                break
            renewed.wait(lease_seconds() / 10)
        return compute(*args, **kwargs)

    monkeypatch.setattr(results, "refresh_sidecar", slow)
    with override_settings(HEDIT_RUN_LEASE_SECONDS=0.3):
        results.ask_task(task, _digest(project, task))  # as a page's ask would, then the task starts
        assert results.validate_sidecar_task.call(str(project.pk), task.pk) in ("valid", "invalid")
    assert renewed.is_set()
    task.refresh_from_db()
    assert task.validation_lease_expires_at is None and not results.current_sidecar(project, task, ask=False).pending


@override_settings(TASKS=DATABASE_TASKS)
def test_the_sweep_asks_again_for_a_sidecar_whose_worker_died(project, django_capture_on_commit_callbacks) -> None:
    task = project.tasks.get()
    with django_capture_on_commit_callbacks(execute=True):
        results.current_sidecar(project, task)
    row = DBTaskResult.objects.get(task_path=results.validate_sidecar_task.module_path)
    row.claim("worker-that-dies")
    assert recover_validation() == []  # its lease is live

    _lapse(task)
    assert recover_validation() == [str(project.pk)]
    assert recover_validation() == []  # once: the new ask has a lease of its own
    rows = DBTaskResult.objects.filter(task_path=results.validate_sidecar_task.module_path).order_by("enqueued_at")
    assert [r.status for r in rows] == ["FAILED", "READY"]
    assert results.validate_sidecar_task.call(*rows[1].args_kwargs["args"]) in ("valid", "invalid")
    assert SidecarResult.objects.filter(task=task).count() == 1
    assert not results.current_sidecar(project, task, ask=False).pending


@override_settings(TASKS=DATABASE_TASKS)
def test_the_sweep_leaves_a_stored_result_alone(project) -> None:
    task = project.tasks.get()
    results.ask_task(task, _digest(project, task))
    results.refresh_project(project)  # stored, and its process died before it said so
    _lapse(task)
    assert recover_validation() == []
    assert not DBTaskResult.objects.exists()
    task.refresh_from_db()
    assert task.validation_lease_expires_at is None


def test_a_database_pool_too_small_for_a_worker_is_reported(monkeypatch) -> None:
    from django.conf import settings

    from annotations.checks import MIN_POOL_SIZE, check_database_pool

    assert check_database_pool() == []  # no pool by default
    # Read by the check only: the open connection never sees it.
    options = settings.DATABASES["default"].setdefault("OPTIONS", {})
    monkeypatch.setitem(options, "pool", {"min_size": 1, "max_size": MIN_POOL_SIZE - 1})
    [error] = check_database_pool()
    assert error.id == "annotations.E004" and f"at least {MIN_POOL_SIZE}" in error.msg
    assert isinstance(error, checks.Error)
