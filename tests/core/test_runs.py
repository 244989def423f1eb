"""A stored run reads back step by step, and failures leave everything before them."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings
from django_tasks import task_backends

from agents.llm.base import LLMError
from annotations.models import AgentStepRecord, AnnotationSession, Iteration, LLMCallRecord, ValidationIssueRecord
from annotations.runs.execution import execute_session
from annotations.runs.lease import claim
from annotations.runs.recovery import resume_cut_off_runs
from annotations.runs.services import (
    RequestError,
    build_options,
    create_session,
    request_cancel,
)
from tests.support.llm import ScriptedLLM

pytestmark = pytest.mark.django_db(transaction=True)


def make_session(description: str = "A red circle appears.", **options: object) -> AnnotationSession:
    return create_session(user=None, description=description, options=build_options(options))


async def test_offline_run_is_stored_step_by_step() -> None:
    session = await sync_to_async(make_session)(
        "A red circle appears on the left side of the screen and the participant presses a button.")
    done = await execute_session(session.pk)
    assert done.status == "succeeded" and done.is_valid
    steps = [s async for s in AgentStepRecord.objects.filter(session=session).order_by("seq")]
    assert [s.agent for s in steps][:3] == ["annotation", "validation", "evaluation"]
    assert [s.seq for s in steps] == list(range(1, len(steps) + 1))
    iteration = await Iteration.objects.aget(session=session, number=1)
    assert iteration.annotation == done.final_annotation == done.machine_annotation
    assert iteration.is_valid is True
    assert done.started_at <= done.finished_at


async def test_errors_and_feedback_are_stored_per_iteration() -> None:
    session = await sync_to_async(make_session)()
    llm = ScriptedLLM({"annotation": ["Sensory-event, Blorp-tag", "Sensory-event, (Red, Circle)"],
                       "feedback": ["Replace Blorp-tag."], "evaluation": ['{"faithful": true}']})
    done = await execute_session(session.pk, llm=llm)
    assert done.status == "succeeded" and done.iteration_count == 2
    issue = await ValidationIssueRecord.objects.select_related("iteration").aget(code="TAG_INVALID")
    assert issue.iteration.number == 1 and issue.hint and issue.tag == "Blorp-tag"
    first = await Iteration.objects.aget(session=session, number=1)
    assert first.is_valid is False and "Replace Blorp-tag." in first.feedback
    # One message, from the feedback agent: a faithful verdict with no remark stores none.
    assert [m.source async for m in session.feedback_messages.all()] == ["feedback"]
    assert await LLMCallRecord.objects.filter(session=session).acount() == 4
    assert done.llm_call_count == 4 and done.prompt_tokens > 0 and done.completion_tokens > 0


async def test_the_configured_model_is_closed_after_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[bool] = []

    class ClosableLLM(ScriptedLLM):
        async def aclose(self) -> None:
            closed.append(True)

    llm = ClosableLLM({"annotation": ["Sensory-event, (Red, Circle)"], "evaluation": ['{"faithful": true}']})
    monkeypatch.setattr("annotations.runs.execution.run_model_for", lambda user, choice="": llm)
    session = await sync_to_async(make_session)()
    done = await execute_session(session.pk)
    assert done.status == "succeeded" and llm.requests  # the run really used the configured model
    assert closed == [True]


async def test_model_failure_keeps_what_was_stored() -> None:
    session = await sync_to_async(make_session)()
    llm = ScriptedLLM({"annotation": ["Sensory-event, Blorp-tag", LLMError("endpoint unreachable")],
                       "feedback": ["x"]})
    done = await execute_session(session.pk, llm=llm)
    assert done.status == "failed" and done.error == "endpoint unreachable"
    assert await Iteration.objects.filter(session=session).acount() == 1
    steps = [s async for s in AgentStepRecord.objects.filter(session=session).order_by("seq")]
    # What was stored stays; the failed call ends the run as a failed step saying why.
    assert len(steps) == 4 and [s.ok for s in steps][-1] is False
    assert steps[-1].agent == "annotation" and steps[-1].output == "endpoint unreachable"


async def test_crash_mid_run_marks_failed_and_keeps_steps() -> None:
    session = await sync_to_async(make_session)()

    def explode(agent: str, messages: list) -> str:
        raise RuntimeError("disk on fire")

    llm = ScriptedLLM({"annotation": ["Sensory-event, Blorp-tag"], "feedback": [explode]})
    done = await execute_session(session.pk, llm=llm)
    assert done.status == "failed" and "disk on fire" in done.error and "\n" not in done.error
    assert await AgentStepRecord.objects.filter(session=session).acount() == 2


async def test_a_session_runs_once() -> None:
    session = await sync_to_async(make_session)()
    assert await execute_session(session.pk) is not None
    assert await execute_session(session.pk) is None


async def test_cancel_queued_and_running() -> None:
    queued = await sync_to_async(make_session)()
    assert await sync_to_async(request_cancel)(queued)
    assert (await AnnotationSession.objects.aget(pk=queued.pk)).status == "cancelled"
    assert await execute_session(queued.pk) is None  # never starts

    running = await sync_to_async(make_session)()

    def cancel_then_answer(agent: str, messages: list) -> str:
        AnnotationSession.objects.filter(pk=running.pk).update(cancel_requested=True)
        return "Sensory-event, Blorp-tag"

    llm = ScriptedLLM({"annotation": [sync_to_async_free(cancel_then_answer)], "feedback": ["x"]})
    done = await execute_session(running.pk, llm=llm)
    assert done.status == "cancelled"
    assert await Iteration.objects.filter(session=running).acount() == 1


def sync_to_async_free(fn):  # type: ignore[no-untyped-def]
    """ScriptedLLM calls replies inside the event loop; run the ORM update in a worker thread."""
    import concurrent.futures

    def wrapper(agent: str, messages: list) -> str:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(fn, agent, messages).result()

    return wrapper


def test_runs_a_stop_cut_off_are_queued_again_when_the_embedded_server_starts(settings) -> None:
    running, queued, done = make_session(), make_session(), make_session()
    spent, cancelled = make_session(), make_session()
    AnnotationSession.objects.filter(pk=running.pk).update(status="running", attempt=1, worker_id="old:1")
    AnnotationSession.objects.filter(pk=done.pk).update(status="succeeded")
    AnnotationSession.objects.filter(pk=spent.pk).update(status="running", attempt=settings.HEDIT_RUN_MAX_ATTEMPTS)
    AnnotationSession.objects.filter(pk=cancelled.pk).update(status="running", attempt=1, cancel_requested=True)
    with override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}):
        recovery = resume_cut_off_runs()
        enqueued = [r.args[0] for r in task_backends["default"].results]
    assert recovery.requeued == [str(running.pk), str(queued.pk)] == enqueued  # oldest first
    statuses = dict(AnnotationSession.objects.values_list("pk", "status"))
    assert [statuses[s.pk] for s in (running, queued, done, spent, cancelled)] == [
        "queued", "queued", "succeeded", "failed", "cancelled"]
    spent.refresh_from_db()
    assert spent.interrupted and spent.error == "the server stopped during each of its attempts; gave up (re-run it)"


async def test_a_resumed_run_finishes_and_keeps_what_its_cut_off_attempt_stored() -> None:
    session = await sync_to_async(make_session)()
    await sync_to_async(claim)(session.pk, "old:1")  # the stopped server had started it
    await AgentStepRecord.objects.acreate(session=session, seq=1, attempt=1, agent="annotation", action="kept")

    with override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}):
        await sync_to_async(resume_cut_off_runs)()
    finished = await execute_session(session.pk, llm=ScriptedLLM({"annotation": ["Sensory-event, (Red, Circle)"],
                                                                   "evaluation": ['{"faithful": true}']}))
    assert finished.status == "succeeded" and finished.attempt == 2
    seqs = [s async for s in AgentStepRecord.objects.filter(session=session).order_by("seq").values_list(
        "seq", "attempt")]
    assert seqs[0] == (1, 1) and [a for _, a in seqs[1:]] == [2] * (len(seqs) - 1)
    assert [q for q, _ in seqs] == list(range(1, len(seqs) + 1))


@pytest.mark.parametrize(("description", "options", "message"), [
    ("", {}, "Description is empty."),
    ("x" * 5001, {}, "limit is 5000"),
    ("ok", {"schema_version": "9.9.9"}, "Unknown HED schema version"),
    ("ok", {"max_validation_attempts": "many"}, "Invalid option"),
])
def test_bad_requests_store_nothing(description: str, options: dict, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        create_session(user=None, description=description, options=build_options(options))
    assert AnnotationSession.objects.count() == 0
