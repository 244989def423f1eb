"""Scale-out: the worker running a dataset job is killed with SIGKILL mid-job; a new worker finishes every
level (the one it was running and the ones still waiting their turn), each step stored once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaleout.cluster import cluster, poll

pytestmark = pytest.mark.scaleout

LEVELS = 6

# One job, one level at a time, so that when its worker dies some levels are done, one is running and the
# rest wait for their turn.
CREATE_JOB = f"""
import json
from annotations.datasets import services
from bidsdata.archive import read_uploads
shapes = ["circle", "square", "triangle", "star", "cross", "ring"][:{LEVELS}]
events = "onset\\tduration\\tshape\\n" + "".join(f"{{n}}.0\\t0.5\\t{{s}}\\n" for n, s in enumerate(shapes * 2))
sidecar = {{"shape": {{"Description": "The shape shown", "Levels": {{
    s: f"A red {{s}} appears left of fixation." for s in shapes}}}}}}
files = read_uploads([("sub-01_task-shapes_events.tsv", events.encode()),
                      ("task-shapes_events.json", json.dumps(sidecar).encode())])
project = services.import_dataset(user=None, files=files, name="shapes", schema_version="8.3.0")
assert len(services.start_annotation(project, user=None, concurrency=1)) == {LEVELS}
"""

MID_JOB = ("SELECT count(*) FILTER (WHERE status = 'succeeded') >= 1 AND count(*) FILTER (WHERE status = 'queued') >= 2"
           " AND EXISTS (SELECT 1 FROM annotations_annotationsession s JOIN annotations_agentsteprecord a"
           " ON a.session_id = s.id WHERE s.status = 'running') FROM annotations_annotationsession")

SETTLED = """
from annotations.datasets.selectors import current_status
from annotations.models import DatasetProject
project = DatasetProject.objects.get()
assert current_status(project) == "done", project.status
"""


def test_a_dataset_job_survives_its_worker_killed(tmp_path: Path) -> None:
    with cluster(tmp_path) as c:
        c.manage("shell", "-c", CREATE_JOB)
        worker = c.start_worker("first")
        # Mid-job: a level done, the next one running with a step stored, others still queued.
        poll("the job to be mid-way", lambda: c.rows(MID_JOB)[0][0], timeout=90)
        c.kill(worker)
        waiting = c.rows("SELECT count(*) FROM annotations_annotationsession WHERE status = 'queued'")[0][0]
        assert waiting >= 1, "every level had started when the worker was killed"
        kept = c.stored_steps()

        c.start_worker("second")
        c.wait_until_every_run_ends()

        statuses = c.rows("SELECT id, status FROM annotations_annotationsession")
        assert len(statuses) == LEVELS and {s[1] for s in statuses} == {"succeeded"}
        steps = c.stored_steps()
        assert set(kept) <= set(steps)
        for pk, _ in statuses:
            seqs = [seq for session, seq in steps if session == pk]
            assert seqs == list(range(1, len(seqs) + 1)), (pk, seqs)
        jobs_sql = ("SELECT status FROM django_tasks_database_dbtaskresult WHERE task_path LIKE '%run_dataset_task'"
                    " ORDER BY enqueued_at")
        # After its runs the job composes and validates the sidecars: it ends a moment after the last run.
        poll("the job's last step", lambda: c.rows(jobs_sql)[-1][0] != "RUNNING", timeout=90)
        jobs = c.rows(jobs_sql)
        assert [j[0] for j in jobs] == ["FAILED", "SUCCESSFUL"]  # the dead worker's job closed, its successor ran
        # On a loaded machine the job can end while a sidecar it asked for is still being stored (a run the sweep
        # handed on changed a digest): the project reads "validating" until the background task stored it.
        poll("the project to settle", lambda: c.rows("SELECT status FROM annotations_datasetproject")[0][0] == "done",
             timeout=90)
        c.manage("shell", "-c", SETTLED)
