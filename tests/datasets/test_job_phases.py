"""A dataset job's status says what is true: ``validating`` while it composes and validates the sidecars,
``done`` only once they are stored (a script waiting for ``done`` then gets the sidecar at once), written by a
job (or the sweep, for a dead one), never by a page or the API that reads it."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db.backends.signals import connection_created
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient

from annotations.datasets import leases, results, services
from annotations.datasets.jobs import run_dataset_job, run_dataset_task
from annotations.datasets.recovery import recover_validation
from annotations.models import AnnotationSession, DatasetProject, SessionStatus, SidecarResult
from annotations.runs.tasks import run_session_task

pytestmark = pytest.mark.django_db(transaction=True)

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _queued(user: Any, small_files: Any) -> tuple[DatasetProject, list[str]]:
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    sessions = services.start_annotation(project, user=user, enqueue=False)
    return project, [str(s.pk) for s in sessions]


def _run(project: DatasetProject, ids: list[str]) -> None:
    asyncio.run(run_dataset_job(str(project.pk), ids, 2, use_configured_llm=False))


def _sidecar_is_current(project: DatasetProject) -> bool:
    return all(not results.current_sidecar(project, task, ask=False).pending for task in project.tasks.all())


def test_the_api_says_validating_until_the_sidecar_is_stored_then_done_and_the_sidecar_at_once(
        user, small_files, monkeypatch) -> None:
    project, ids = _queued(user, small_files)
    api = _api(user)
    seen: list[tuple[str, int]] = []
    compute = results.refresh_sidecar

    def watched(*args: Any, **kwargs: Any) -> Any:
        # Every run has ended; the job is storing the sidecar: what does a client polling the API see?
        status = api.get(f"/api/datasets/{project.pk}/").json()["status"]
        seen.append((status, api.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"}).status_code))
        return compute(*args, **kwargs)

    monkeypatch.setattr(results, "refresh_sidecar", watched)
    _run(project, ids)

    assert seen and all(status == "validating" for status, _ in seen), seen  # never "done" before it is stored
    body = api.get(f"/api/datasets/{project.pk}/").json()
    assert body["status"] == "done" and body["error"] == ""
    # A script that waited for "done" gets the sidecar in its next request, without anything computed for it.
    monkeypatch.setattr(results, "task_sidecar", lambda *a, **k: pytest.fail("computed in the request"))
    response = api.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"})
    assert response.status_code == 200, response.content


def test_the_last_level_re_run_on_its_own_ends_the_job(user, small_files) -> None:
    project, ids = _queued(user, small_files)
    lost = ids.pop()  # its job's worker died with it; the sweep re-ran it as a task of its own
    _run(project, ids)
    project.refresh_from_db()
    assert project.status == "annotating"  # one run still queued: nothing to validate yet, and not done
    assert not SidecarResult.objects.filter(task__project=project).exists()

    assert run_session_task.call(lost) in ("succeeded", "invalid")
    project.refresh_from_db()
    assert project.status == "done" and _sidecar_is_current(project)


def test_a_job_whose_every_run_failed_says_so(user, small_files, monkeypatch) -> None:
    project, ids = _queued(user, small_files)
    AnnotationSession.objects.filter(pk__in=ids).update(status=SessionStatus.FAILED,
                                                        error="model said: quota exceeded\nmore detail")
    _run(project, [])
    project.refresh_from_db()
    assert project.status == "failed"
    assert project.error == f"{len(ids)} of {len(ids)} level run(s) failed; the first: model said: quota exceeded"
    assert _sidecar_is_current(project)  # still composed, with what there is


def test_a_job_that_lost_its_validating_phase_cannot_write_done(user, small_files) -> None:
    project, ids = _queued(user, small_files)
    AnnotationSession.objects.filter(pk__in=ids).update(status=SessionStatus.SUCCEEDED)
    first = leases.begin_validating(project.pk)
    assert first is not None and leases.begin_validating(project.pk) is None  # one job holds the phase
    DatasetProject.objects.filter(pk=project.pk).update(validation_lease_expires_at=timezone.now())  # it died
    second = leases.begin_validating(project.pk)
    assert second == first + 1
    assert not leases.end_validating(project.pk, first)  # the dead job's late write is refused
    assert leases.end_validating(project.pk, second)


@override_settings(TASKS=DATABASE_TASKS)
def test_a_job_killed_while_validating_is_handed_on_and_ends_done(user, small_files) -> None:
    project, ids = _queued(user, small_files)
    AnnotationSession.objects.filter(pk__in=ids).update(status=SessionStatus.SUCCEEDED)
    attempt = leases.begin_validating(project.pk)
    assert attempt is not None
    assert recover_validation() == []  # its lease is live: the job is validating
    later = timezone.now() + timedelta(seconds=leases.lease_seconds() + 1)  # a lease on, never renewed

    assert recover_validation(later) == [str(project.pk)]
    assert recover_validation(later) == []  # handed on once
    new = DBTaskResult.objects.get(task_path=run_dataset_task.module_path, status="READY")
    assert new.args_kwargs["args"] == [str(project.pk), [], project.concurrency]
    _run(project, [])
    project.refresh_from_db()
    assert project.status == "done" and _sidecar_is_current(project)


def test_the_job_validates_on_its_own_connection_and_leaves_no_other_open(user, small_files) -> None:
    project, ids = _queued(user, small_files)
    opened: list[tuple[int, Any]] = []

    def record(sender: Any, connection: Any, **kwargs: Any) -> None:
        opened.append((threading.get_ident(), connection))

    async def job() -> int:
        await run_dataset_job(str(project.pk), ids, 2, use_configured_llm=False)
        return await sync_to_async(threading.get_ident)()  # the thread the job's database work runs on

    connection_created.connect(record)
    try:
        job_thread = asyncio.run(job())
    finally:
        connection_created.disconnect(record)
    # A pool lends one connection per thread until it is closed: any other thread's left open is a slot gone.
    left_open = [thread for thread, conn in opened if thread != job_thread and conn.connection is not None]
    assert left_open == []
    assert DatasetProject.objects.get(pk=project.pk).status == "done"


def test_annotate_with_nothing_to_run_still_stores_the_sidecar_before_done(user, small_files, settings) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    project, ids = _queued(user, small_files)
    _run(project, ids)
    api = _api(user)
    column = project.tasks.get().columns.get(name="response_time")
    # An edit that needs no run: the stored sidecar is no longer the current one.
    assert api.patch(f"/api/datasets/{project.pk}/columns/{column.pk}/", {"kind": "skip"},
                     format="json").status_code == 200
    answer = api.post(f"/api/datasets/{project.pk}/annotate/", {}, format="json")
    assert answer.status_code == 202 and answer.json()["queued"] == 0
    assert answer.json()["status"] == "validating"  # it used to say "done" with the sidecar still 202
    assert api.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"}).status_code == 202

    _run(project, [])  # the job the annotate queued
    assert api.get(f"/api/datasets/{project.pk}/").json()["status"] == "done"
    assert api.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"}).status_code == 200


def test_the_project_page_shows_the_validating_phase(user, small_files, client) -> None:
    project, ids = _queued(user, small_files)
    AnnotationSession.objects.filter(pk__in=ids).update(status=SessionStatus.SUCCEEDED)
    assert leases.begin_validating(project.pk) is not None
    client.force_login(user)
    page = client.get(f"/datasets/{project.pk}/").content.decode()
    assert 'data-status="validating"' in page and 'badge--ds-validating" id="dataset-status">Validating<' in page


@override_settings(TASKS=DATABASE_TASKS)
def test_the_embedded_server_restarted_ends_a_job_its_stop_cut_off_while_validating(user, small_files) -> None:
    from annotations.datasets.recovery import resume_cut_off_validation

    project, ids = _queued(user, small_files)
    AnnotationSession.objects.filter(pk__in=ids).update(status=SessionStatus.SUCCEEDED)
    assert leases.begin_validating(project.pk) is not None  # then the server was killed, lease still live
    assert resume_cut_off_validation() == [str(project.pk)]
    new = DBTaskResult.objects.get(task_path=run_dataset_task.module_path, status="READY")
    asyncio.run(run_dataset_job(*new.args_kwargs["args"], use_configured_llm=False))
    project.refresh_from_db()
    assert project.status == "done" and _sidecar_is_current(project)
