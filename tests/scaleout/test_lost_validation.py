"""Scale-out: the worker validating a sidecar is killed with SIGKILL mid-way; within a lease the sidecar is
asked for again and arrives. A dataset job killed in its validating phase is taken up again and ends ``done``
with its sidecar stored (the project used to say ``validating`` for ten minutes, or ``done`` too early)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.scaleout.cluster import LEASE_SECONDS, cluster, poll

pytestmark = pytest.mark.scaleout

# Events files long enough that validating them takes seconds, so a worker can be killed while it does.
DATASET = """
import json
from annotations.datasets import services
from bidsdata.archive import read_uploads
shapes = ["circle", "square", "triangle", "star", "cross", "ring"]
events = "onset\\tduration\\tshape\\n" + "".join(f"{n}.0\\t0.5\\t{shapes[n % 6]}\\n" for n in range(800))
sidecar = {"shape": {"Description": "The shape shown", "Levels": {
    s: f"A red {s} appears left of fixation." for s in shapes}}}
uploads = [(f"sub-{i:02d}_task-shapes_events.tsv", events.encode()) for i in range(4)]
uploads.append(("task-shapes_events.json", json.dumps(sidecar).encode()))
project = services.import_dataset(user=None, files=read_uploads(uploads), name="shapes", schema_version="8.3.0")
"""

ASK = DATASET + """
from annotations.datasets import results
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
levels = list(DatasetLevel.objects.all())
for session in services.create_level_sessions(project, levels, user=None):
    AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
        final_annotation="Sensory-event, Visual-presentation", machine_annotation="Sensory-event, Visual-presentation")
assert results.current_sidecar(project, project.tasks.get()).pending  # a page asks for it
"""

JOB = DATASET + """
assert len(services.start_annotation(project, user=None, concurrency=6)) == 6
"""

CURRENT = """
from annotations.datasets import results
from annotations.models import DatasetProject
project = DatasetProject.objects.get()
assert not results.current_sidecar(project, project.tasks.get(), ask=False).pending, "not the current sidecar"
"""

TASK_ROWS = ("SELECT status, started_at FROM django_tasks_database_dbtaskresult WHERE task_path LIKE "
             "'%validate_sidecar_task' ORDER BY enqueued_at")
STORED = "SELECT count(*) FROM annotations_sidecarresult"


def test_a_sidecar_whose_worker_was_killed_is_asked_again_within_a_lease(tmp_path: Path) -> None:
    with cluster(tmp_path) as c:
        c.manage("shell", "-c", ASK)
        worker = c.start_worker("first")
        poll("a worker to take the sidecar", lambda: [r for r in c.rows(TASK_ROWS) if r[0] == "RUNNING"], timeout=60)
        c.kill(worker)
        killed = time.monotonic()
        assert c.rows(STORED)[0][0] == 0, "the sidecar was stored before its worker was killed"

        c.start_worker("second")
        # The sweep sees the ask's lease lapse (nobody renews it) and asks again: within a lease and a sweep.
        poll("the sidecar to be asked for again", lambda: len(c.rows(TASK_ROWS)) >= 2, timeout=LEASE_SECONDS + 15)
        asked_after = time.monotonic() - killed
        poll("the sidecar to be stored", lambda: c.rows(STORED)[0][0] >= 1, timeout=180)
        assert asked_after < LEASE_SECONDS + 15
        assert c.rows(TASK_ROWS)[0][0] == "FAILED"  # the dead worker's row says what happened
        c.manage("shell", "-c", CURRENT)


def test_a_dataset_job_killed_while_validating_ends_done_with_its_sidecar(tmp_path: Path) -> None:
    with cluster(tmp_path) as c:
        c.manage("shell", "-c", JOB)
        worker = c.start_worker("first")
        status = "SELECT status FROM annotations_datasetproject"
        poll("the job to be validating", lambda: c.rows(status)[0][0] == "validating", timeout=120)
        c.kill(worker)
        assert c.rows(STORED)[0][0] == 0, "the sidecar was stored before the job's worker was killed"

        c.start_worker("second")
        poll("the job to end", lambda: c.rows(status)[0][0] != "validating", timeout=180)
        assert c.rows(status)[0][0] == "done"
        assert c.rows(STORED)[0][0] >= 1
        c.manage("shell", "-c", CURRENT)
