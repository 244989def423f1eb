"""Scale-out: both workers are killed with SIGKILL while runs are in flight; a new worker finishes every run,
and each step is stored once. Real processes on PostgreSQL (a database of this test's own) and Redis."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaleout.cluster import cluster, poll

pytestmark = pytest.mark.scaleout

# Enough runs that both workers are still busy when the slower one has warmed up: on a loaded machine one
# worker's warm-up (Django, hedtools, the schema) has outlasted twelve runs of the other, and the test then
# never saw both mid-run.
RUNS = 30

CREATE_RUNS = f"""
from django.db import transaction
from annotations.runs.services import build_options, create_session, start_session
for n in range({RUNS}):
    with transaction.atomic():
        s = create_session(user=None, description=f"Stimulus {{n}}: a red circle appears left of fixation.",
                           options=build_options({{"max_validation_attempts": 2, "max_total_iterations": 3}}))
        start_session(s)
"""


def test_runs_survive_both_workers_killed(tmp_path: Path) -> None:
    with cluster(tmp_path) as c:
        c.manage("shell", "-c", CREATE_RUNS)
        first, second = c.start_worker("first"), c.start_worker("second")
        # Both workers mid-run, each with at least one step stored.
        in_flight = poll("both workers to be mid-run", lambda: (lambda r: r if len(r) >= 2 else None)(c.rows(
            "SELECT s.id FROM annotations_annotationsession s WHERE s.status = 'running' AND EXISTS "
            "(SELECT 1 FROM annotations_agentsteprecord a WHERE a.session_id = s.id)")), timeout=90)
        for process in (first, second):
            c.kill(process)
        lost = {r[0] for r in c.rows("SELECT id FROM annotations_annotationsession WHERE status = 'running'")}
        # Killed mid-run (one of the two may have finished in the moment before the kill): nobody will
        # finish these but a new worker.
        cut_short = {r[0] for r in in_flight} & lost
        assert cut_short, "no run was in flight when both workers were killed"
        kept = c.stored_steps()

        c.start_worker("third")
        c.wait_until_every_run_ends()

        statuses = c.rows("SELECT id, status, attempt FROM annotations_annotationsession")
        assert [s for s in statuses if s[1] != "succeeded"] == [], c.logs()
        assert len(statuses) == RUNS
        assert all(attempt >= 2 for pk, _, attempt in statuses if pk in lost)
        steps = c.rows("SELECT session_id, attempt, seq, agent FROM annotations_agentsteprecord ORDER BY 1, 3")
        # The lost attempts' steps stay, and every step is stored once: seq 1..n with no gap or repeat.
        assert set(kept) <= {(s[0], s[2]) for s in steps}
        for pk, *_ in statuses:
            seqs = [s[2] for s in steps if s[0] == pk]
            assert seqs == list(range(1, len(seqs) + 1)), (pk, seqs)
            final = [s for s in steps if s[0] == pk and s[1] == max(x[1] for x in steps if x[0] == pk)]
            assert final[0][3] == "annotation"  # the last attempt ran the workflow from its start
        for pk in cut_short:
            assert {s[1] for s in steps if s[0] == pk} >= {1, 2}, "the lost attempt's steps were kept"
