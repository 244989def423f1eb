"""Issue 25, finding 2: the dataset quota holds exactly when one user's requests arrive at once.

On PostgreSQL, 20 concurrent answers on 20 projects with ``HEDIT_DATASET_RATE=3/day`` accepted 5: each request
counted the window before the others had stored their runs. The count and the insert now run under a lock on
the user's row. Real connections (one per thread) against a real PostgreSQL; SQLite serialises writers anyway.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, connections

from annotations.datasets.question_answers import answer_everywhere
from annotations.errors import QuotaExceeded
from annotations.models import AnnotationSession, DatasetColumn, DatasetLevel, DatasetProject, DatasetTask

pytestmark = [pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
              pytest.mark.django_db(transaction=True)]
REQUESTS = 20
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


def _one_level_project(user, number: int) -> DatasetLevel:
    """A project of one task, one categorical column and one level (made-up names)."""
    project = DatasetProject.objects.create(user=user, name=f"study {number}", schema_version="8.4.0")
    task = DatasetTask.objects.create(project=project, name="tones", sidecar_name="task-tones_events.json")
    column = DatasetColumn.objects.create(task=task, name="pitch", kind="categorical", detected_kind="categorical")
    return DatasetLevel.objects.create(column=column, value="high", count=1, description="A high tone.",
                                       needs_description=True)


def _all_at_once(work) -> Counter:
    """Run *work* in REQUESTS threads released together, each on its own connection; count the outcomes."""
    start = threading.Barrier(REQUESTS, timeout=30)
    outcomes: Counter = Counter()
    guard = threading.Lock()

    def run(index: int) -> None:
        try:
            start.wait()
            work(index)
            outcome = "accepted"
        except QuotaExceeded:
            outcome = "refused"
        except Exception as exc:  # reported in the assertion, not lost in the thread
            outcome = f"error: {exc!r}"
        finally:
            connections.close_all()
        with guard:
            outcomes[outcome] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(REQUESTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a request never finished (a deadlock?)"
    return outcomes


def test_concurrent_answers_on_many_projects_keep_the_dataset_quota_exactly(user, settings):
    settings.HEDIT_DATASET_RATE = "3/day"
    settings.TASKS = DUMMY_TASKS
    levels = [_one_level_project(user, i) for i in range(REQUESTS)]

    def answer(index: int) -> None:
        level = levels[index]
        answer_everywhere(level.column.task.project, user=user, answer=f"A tone of {index} Hz.", level=level)

    outcomes = _all_at_once(answer)
    assert outcomes == Counter(accepted=3, refused=REQUESTS - 3)
    assert AnnotationSession.objects.filter(user=user).count() == 3
    # A refused answer keeps no description: the description is kept only with its run queued.
    assert DatasetLevel.objects.filter(needs_description=False).count() == 3


def test_concurrent_single_runs_keep_the_run_quota_exactly(user, settings):
    from agents.state import WorkflowOptions
    from annotations.runs.services import create_session

    settings.HEDIT_RUN_RATE = "3/hour"
    outcomes = _all_at_once(lambda index: create_session(user=user, description=f"A tone of {index} Hz plays.",
                                                         options=WorkflowOptions()))
    assert outcomes == Counter(accepted=3, refused=REQUESTS - 3)
    assert AnnotationSession.objects.filter(user=user).count() == 3
