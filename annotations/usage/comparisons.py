"""Compare: two sidecar revisions of a task (a stored one, or the lab's upload) through a set of queries.

Both revisions are searched in the processes that hold them; the rows whose answer changes are counted and
one page of them is shown with each revision's assembled HED (:mod:`bidsdata.usage.compare`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotations.limits import check_query_rate
from annotations.models import DatasetProject, DatasetTask
from annotations.usage.revisions import Revision, revision_of, task_events
from annotations.usage.services import PAGE_ROWS, clean_queries, configured
from bidsdata.usage.compare import Comparison, compare


@dataclass
class TaskComparison:
    task: DatasetTask
    a: Revision
    b: Revision
    result: Comparison
    page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.result.changed // PAGE_ROWS))


def compare_revisions(user: Any, project: DatasetProject, task: DatasetTask, a: str | None, b: str | None,
                      raw_queries: list[str], *, page: int = 1, scope: str = "page") -> TaskComparison:
    """*task* under revisions *a* and *b* (default: the upload against the newest stored sidecar)."""
    queries = clean_queries(raw_queries)
    check_query_rate(user, scope)
    configured()
    first = revision_of(project, task, a or "uploaded")
    second = revision_of(project, task, b)
    events_a, events_b = task_events(project, task, first), task_events(project, task, second)
    answers_a, answers_b = events_a.row_answers(queries), events_b.row_answers(queries)
    offset = (max(1, page) - 1) * PAGE_ROWS
    result = compare([s.path for s in events_a.sources], answers_a, answers_b, queries, offset=offset,
                     limit=PAGE_ROWS)
    wanted: dict[str, list[int]] = {}
    for row in result.rows:
        wanted.setdefault(row.path, []).append(row.row)
    if wanted:
        heds_a, heds_b = events_a.row_heds(wanted), events_b.row_heds(wanted)
        for row in result.rows:
            row.hed_a = heds_a.get(row.path, {}).get(row.row, [])
            row.hed_b = heds_b.get(row.path, {}).get(row.row, [])
    return TaskComparison(task=task, a=first, b=second, result=result, page=max(1, page))


__all__ = ["TaskComparison", "compare_revisions"]
