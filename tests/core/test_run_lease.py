"""Runs survive their worker: leases, bounded re-runs, fenced writes, Cancel and Re-run of a dead run,
and a worker that waits out a database refusing connections."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError, connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from django_tasks import task_backends
from django_tasks_db.models import DBTaskResult

from annotations.models import AgentStepRecord, AnnotationSession, Iteration, SessionStatus
from annotations.runs import lease
from annotations.runs.execution import execute_session
from annotations.runs.recorder import SessionRecorder
from annotations.runs.recovery import recover_lost_runs
from annotations.runs.services import build_options, create_session, start_session
from annotations.runs.worker import Backoff, RunWorker
from tests.support.llm import ScriptedLLM

pytestmark = pytest.mark.django_db(transaction=True)

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# Two invalid attempts with feedback, then a valid one: enough steps to lose a run in the middle.
SCRIPT = {"annotation": ["Sensory-event, Blorp-tag", "Sensory-event, Zorp-tag", "Sensory-event, (Red, Circle)"],
          "feedback": ["Replace Blorp-tag.", "Replace Zorp-tag."], "evaluation": ['{"faithful": true}']}


class WorkerDied(BaseException):
    """Stands in for SIGKILL: nothing in the run may catch it, so the run stays running with its lease."""


def make_session(user=None, description: str = "A red circle appears.") -> AnnotationSession:
    return create_session(user=user, description=description, options=build_options({"max_validation_attempts": 5}))


def lapse(session_id) -> None:
    """Time passes: the lease runs out because nobody renews it."""
    AnnotationSession.objects.filter(pk=session_id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))


async def run_and_die_after(session_id, steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = 0
    original = SessionRecorder.on_step

    async def on_step(self, step, state) -> None:
        nonlocal stored
        await original(self, step, state)
        stored += 1
        if stored == steps:
            raise WorkerDied

    monkeypatch.setattr(SessionRecorder, "on_step", on_step)
    with pytest.raises(WorkerDied):
        await execute_session(session_id, llm=ScriptedLLM(SCRIPT))
    monkeypatch.setattr(SessionRecorder, "on_step", original)


@override_settings(TASKS=DUMMY_TASKS)
async def test_a_lost_run_runs_again_and_each_step_is_stored_once(monkeypatch: pytest.MonkeyPatch) -> None:
    session = await sync_to_async(make_session)()
    await run_and_die_after(session.pk, 3, monkeypatch)  # annotation, validation, feedback
    lost = await AnnotationSession.objects.aget(pk=session.pk)
    assert lost.status == SessionStatus.RUNNING and lost.attempt == 1 and lost.lease_expires_at is not None
    assert await sync_to_async(lambda: recover_lost_runs().requeued)() == []  # the lease has not lapsed yet

    await sync_to_async(lapse)(session.pk)
    recovery = await sync_to_async(recover_lost_runs)()
    assert recovery.requeued == [str(session.pk)]
    assert len(task_backends["default"].results) == 1  # handed to the queue again
    assert (await AnnotationSession.objects.aget(pk=session.pk)).status == SessionStatus.QUEUED

    done = await execute_session(session.pk, llm=ScriptedLLM(SCRIPT))
    assert done.status == SessionStatus.SUCCEEDED and done.attempt == 2
    steps = [s async for s in AgentStepRecord.objects.filter(session=session).order_by("seq")]
    # The lost attempt's three steps stay; the new attempt numbers its own after them, once each.
    assert [s.seq for s in steps] == list(range(1, len(steps) + 1))
    assert [(s.attempt, s.agent) for s in steps[:4]] == [(1, "annotation"), (1, "validation"), (1, "feedback"),
                                                          (2, "annotation")]
    numbers = [it.number async for it in Iteration.objects.filter(session=session).order_by("number")]
    assert numbers == list(range(1, len(numbers) + 1)) and done.iteration_count == numbers[-1]


@override_settings(TASKS=DUMMY_TASKS, HEDIT_RUN_MAX_ATTEMPTS=3)
def test_a_run_lost_again_and_again_ends_failed_with_the_reason() -> None:
    session = make_session()
    start_session(session)
    for attempt in (1, 2, 3):
        claim = lease.claim(session.pk, f"worker-{attempt}")
        assert claim is not None and claim.attempt.number == attempt
        lapse(session.pk)
        recover_lost_runs()
    session.refresh_from_db()
    assert session.status == SessionStatus.FAILED and session.interrupted
    assert session.error == "its worker stopped during each of 3 attempts; gave up (re-run it)"
    assert session.finished_at is not None and session.lease_expires_at is None
    assert len(task_backends["default"].results) == 1 + 2  # the first start, then two re-runs, no third
    assert recover_lost_runs().total == 0


@override_settings(TASKS=DATABASE_TASKS)
def test_a_run_whose_worker_died_between_its_task_and_the_run_is_queued_again() -> None:
    session = make_session()
    start_session(session)  # transactional test: the task row is written at once
    row = DBTaskResult.objects.get(args_kwargs__args__0=str(session.pk))
    row.claim("worker-that-dies")  # took the task from the queue; died before lease.claim
    assert recover_lost_runs().total == 0  # a live worker takes the run a moment later: not yet an orphan

    DBTaskResult.objects.filter(pk=row.pk).update(
        started_at=timezone.now() - timedelta(seconds=lease.lease_seconds() + 1))
    recovery = recover_lost_runs()
    assert recovery.requeued == [str(session.pk)]
    rows = DBTaskResult.objects.filter(args_kwargs__args__0=str(session.pk))
    assert sorted(r.status for r in rows) == ["FAILED", "READY"]  # the dead worker's row closed, a new one
    assert recover_lost_runs().total == 0  # once
    session.refresh_from_db()
    assert session.status == SessionStatus.QUEUED


@override_settings(TASKS=DUMMY_TASKS)
async def test_a_worker_that_lost_its_run_stores_nothing_more(monkeypatch: pytest.MonkeyPatch) -> None:
    session = await sync_to_async(make_session)()
    await run_and_die_after(session.pk, 1, monkeypatch)
    await sync_to_async(lapse)(session.pk)
    await sync_to_async(recover_lost_runs)()
    second = await sync_to_async(lease.claim)(session.pk, "worker-2")
    # The first worker wakes up and tries to write: refused, nothing stored, the lease stays with attempt 2.
    with pytest.raises(lease.LeaseLost):
        await sync_to_async(lease.renew_or_raise)(session.pk, 1)
    assert await sync_to_async(lease.renew)(session.pk, second.attempt.number)
    assert await AgentStepRecord.objects.filter(session=session).acount() == 1


@override_settings(TASKS=DUMMY_TASKS)
def test_cancel_ends_a_run_whose_worker_died(client, user) -> None:
    session = make_session(user)
    lease.claim(session.pk, "dead")
    client.force_login(user)
    alive = client.post(reverse("annotations:session-cancel", kwargs={"pk": session.pk}))
    assert alive.status_code == 302
    session.refresh_from_db()
    assert session.status == SessionStatus.RUNNING and session.cancel_requested  # a live worker would stop it

    lapse(session.pk)
    client.post(reverse("annotations:session-cancel", kwargs={"pk": session.pk}))
    session.refresh_from_db()
    assert session.status == SessionStatus.CANCELLED and session.finished_at is not None
    assert recover_lost_runs().total == 0


@override_settings(TASKS=DUMMY_TASKS)
def test_rerun_starts_a_run_whose_worker_died(client, user) -> None:
    session = make_session(user)
    lease.claim(session.pk, "dead")
    client.force_login(user)
    url = reverse("annotations:session-rerun", kwargs={"pk": session.pk})
    client.post(url)
    assert AnnotationSession.objects.count() == 1  # still running on a live lease: refused

    lapse(session.pk)
    page = client.get(session.get_absolute_url()).content.decode()
    assert 'id="rerun-button"' in page
    response = client.post(url)
    new = AnnotationSession.objects.exclude(pk=session.pk).get()
    assert response.status_code == 302 and response["Location"] == new.get_absolute_url()
    assert new.status == SessionStatus.QUEUED and new.description == session.description
    session.refresh_from_db()
    assert session.status == SessionStatus.FAILED and "worker stopped" in session.error
    assert recover_lost_runs().total == 0  # the old run is not re-queued behind the user's back


def test_worker_waits_out_a_database_refusing_connections() -> None:
    refusals = {"left": 3}

    def too_many_clients(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if refusals["left"]:
            refusals["left"] -= 1
            raise OperationalError("connection failed: FATAL:  sorry, too many clients already")
        return execute(sql, params, many, context)

    with override_settings(TASKS=DATABASE_TASKS):
        session = make_session(description="A green square flashes at the centre of the screen.")
        start_session(session)
        waits: list[float] = []
        worker = RunWorker(sweep_seconds=0, backoff=Backoff(jitter=lambda: 0.0), sleep=waits.append,
                           queue_names=["default"], interval=0, batch=True, backend_name="default",
                           startup_delay=False, max_tasks=1, worker_id="test-worker", excluded_queue_names=[])
        with connection.execute_wrapper(too_many_clients):
            worker.run()
    assert waits == [0.5, 1.0, 2.0]  # backed off, doubling, instead of exiting
    session.refresh_from_db()
    assert session.status == SessionStatus.SUCCEEDED and session.worker_id == lease.worker_name()
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"
