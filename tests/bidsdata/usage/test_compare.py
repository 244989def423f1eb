"""Two sidecars of one task through a set of queries: the rows whose answer changes, by the files' rows."""

from __future__ import annotations

import copy

from bidsdata.archive import read_folder
from bidsdata.usage import TaskEvents
from bidsdata.usage.compare import compare
from bidsdata.usage.sources import dataset_version, task_sources, tasks_of
from tests.bidsdata.usage.hedtools_loop import MADE_UP_SIDECAR


def test_the_rows_whose_answer_changes_and_their_hed(made_up):
    files = read_folder(made_up)
    version = dataset_version(files)
    paths = tasks_of(files)["demo"]
    changed = copy.deepcopy(MADE_UP_SIDECAR)
    changed["trial_kind"]["HED"]["halt"] = changed["trial_kind"]["HED"]["halt"].replace("Red", "Blue")
    a = TaskEvents("demo", version, task_sources(files, paths, version))
    b = TaskEvents("demo", version, task_sources(files, paths, version, sidecars={"task-demo_events.json": changed}))
    queries = ["Red", "Blue", "Sensory-event"]
    result = compare(paths, a.row_answers(queries), b.row_answers(queries), queries, offset=0, limit=100)
    halts = a.counts(["Red"]).matched_rows[0]
    assert halts > 0
    assert result.per_query() == [
        {"query": "Red", "a": halts, "b": 0, "gained": 0, "lost": halts},
        {"query": "Blue", "a": 0, "b": halts, "gained": halts, "lost": 0},
        {"query": "Sensory-event", "a": result.matches_a[2], "b": result.matches_a[2], "gained": 0, "lost": 0}]
    assert result.changed == halts == len(result.rows)
    assert all(r.pairs[:2] == [(1, 0), (0, 1)] for r in result.rows)
    wanted = {}
    for row in result.rows:
        wanted.setdefault(row.path, []).append(row.row)
    heds_a, heds_b = a.row_heds(wanted), b.row_heds(wanted)
    first = result.rows[0]
    assert any("Red" in h for h in heds_a[first.path][first.row])
    assert any("Blue" in h for h in heds_b[first.path][first.row])
    page = compare(paths, a.row_answers(queries), b.row_answers(queries), queries, offset=1, limit=1)
    assert [(r.path, r.row) for r in page.rows] == [(result.rows[1].path, result.rows[1].row)]
