"""A burst of answers: the answered levels annotated again and each answered task validated once, off the runs'
slots (issue 25: each answer used to queue a job that validated the whole project in one of the two slots)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django_tasks import default_task_backend, task

from annotations.datasets import answers, jobs
from annotations.datasets.question_answers import answer_everywhere
from annotations.models import AnnotationSession, DatasetColumn, DatasetProject, JobStatus, SessionStatus
from tests.datasets.lab import lab_project, level

WAIT = 60.0
ANSWERED = [("trial_type", "blink_twice"), ("trial_type", "press"), ("value", "6"), ("stage", "early")]
slot_taken, slot_free = threading.Event(), threading.Event()
slot_threads: list[str] = []


@task()
def hold_the_slot() -> str:
    """Another user's long run: it holds the runs' only slot until the test lets it go."""
    slot_threads.append(threading.current_thread().name)
    slot_taken.set()
    slot_free.wait(WAIT)
    return "done"


class Recorder:
    """Stands in for the model run and the validation; records what ran, where, and signals when validated."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, expected_runs: int = len(ANSWERED)) -> None:
        self.runs: list[str] = []
        self.threads: set[str] = set()
        self.validated: list[tuple[str, int]] = []
        self.statuses: list[str] = []  # the project's status each time the job's validating phase ran
        self.done = threading.Event()

        async def execute_session(session_id: str, **_: Any) -> None:
            self.runs.append(session_id)
            self.threads.add(threading.current_thread().name)
            await AnnotationSession.objects.filter(pk=session_id).aupdate(
                status=SessionStatus.SUCCEEDED, final_annotation="Sensory-event", is_valid=True)

        async def no_drafts(*_: Any, **__: Any) -> dict:
            return {}

        async def no_broadcast(*_: Any, **__: Any) -> None:
            return None

        def validated(project: DatasetProject, tasks: list[Any]) -> None:
            self.validated.extend((str(project.pk), task.pk) for task in tasks)
            self.threads.add(threading.current_thread().name)
            if len(self.runs) == expected_runs:
                self.done.set()

        def store_current(project: DatasetProject) -> None:
            """The job's validating phase (each task without a current result validated once). Its status is
            recorded, not asserted here: an answer arriving meanwhile reopens the job (the phase then writes no
            outcome, :func:`jobs.end_validating`), and an assertion here would fail the drain itself."""
            self.statuses.append(DatasetProject.objects.get(pk=project.pk).status)
            validated(project, list(project.tasks.all()))

        def refresh_sidecar(project: DatasetProject, task: Any, **_: Any) -> None:
            """An answered task validated alone: answers that came after a drain had ended its job (on a slow
            machine the burst's last answers find the first drain done and start a second one)."""
            validated(project, [task])

        monkeypatch.setattr(answers, "execute_session", execute_session)
        monkeypatch.setattr(answers, "column_drafts", no_drafts)
        monkeypatch.setattr(answers, "broadcast_progress", no_broadcast)
        monkeypatch.setattr(jobs, "broadcast_progress", no_broadcast)
        monkeypatch.setattr(jobs, "store_current", store_current)
        monkeypatch.setattr(answers, "refresh_sidecar", refresh_sidecar)
        # No notes but this test's, and an answers thread of its own: a drain an earlier test left behind (its
        # database since emptied) must not hold this one up.
        answers.reset()


def _burst(project: DatasetProject, user: Any) -> list[AnnotationSession]:
    sessions = [session for column, value in ANSWERED
                for session in answer_everywhere(project, user=user, answer=f"What the lab says of {value}.",
                                                 level=level(project, column, value))]
    stage = DatasetColumn.objects.get(task__project=project, name="stage")
    assert answer_everywhere(project, user=user, answer="Which half of the session.", column=stage) == []
    return sessions


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_answers_runs_each_level_and_validates_each_task_once(user, monkeypatch, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    default_task_backend.clear()
    recorder = Recorder(monkeypatch)
    launched: list[str] = []
    monkeypatch.setattr(answers, "launch", launched.append)  # drained below, after the whole burst
    project = lab_project(user)
    sessions = _burst(project, user)
    assert launched == [str(project.pk)], "one drain for the burst, however many answers"
    assert default_task_backend.results == [], "no dataset job queued in the runs' backend"
    answers.drain(str(project.pk))
    assert sorted(recorder.runs) == sorted(str(s.pk) for s in sessions), "only the answered levels run again"
    [task_row] = project.tasks.all()
    assert recorder.validated == [(str(project.pk), task_row.pk)], "one validation of the answered task"
    assert recorder.statuses == [JobStatus.VALIDATING], "validated in the job's validating phase"
    assert DatasetProject.objects.get(pk=project.pk).status == JobStatus.DONE  # written by the job's end
    assert answers.draining() == set() and answers.pending() == {}


@pytest.mark.django_db(transaction=True)
def test_answers_are_settled_while_the_run_slots_are_taken(user, monkeypatch, settings):
    settings.TASKS = {"default": {"BACKEND": "annotations.runs.backends.ThreadPoolBackend",
                                  "OPTIONS": {"MAX_WORKERS": 1}}}
    recorder = Recorder(monkeypatch)
    slot_taken.clear()
    slot_free.clear()
    try:
        hold_the_slot.enqueue()
        assert slot_taken.wait(WAIT) and slot_threads[0].startswith("hedit-run"), "the runs' only slot is taken"
        project = lab_project(user)
        sessions = _burst(project, user)
        assert recorder.done.wait(WAIT), "the answered task was validated with the runs' slot still taken"
        assert not slot_free.is_set()
    finally:
        slot_free.set()
    assert sorted(recorder.runs) == sorted(str(s.pk) for s in sessions)
    assert recorder.threads and all(name.startswith("hedit-answers") for name in recorder.threads)
