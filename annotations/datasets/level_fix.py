"""A level's fix where its error is: the issues that name it, the events rows it touches, and its correction.

"Fix this level" used to open a page saying "Valid, 0 other levels need work" without the error; fixing went
through the run's review page. The level page reads the task's stored sidecar result (:mod:`.results`, never
hedtools on the request path): the sidecar and events-file issues that name the level, and the rows of the
row preview that carry its value, each with hedtools' event check. A correction is stored as a revision of
the level's run (:func:`annotations.corrections.correct_annotation`), so the level, its run and the
sidecar all read the same annotation; the sidecar is then validated again in the background.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from annotations import corrections
from annotations.access import can_correct_level
from annotations.datasets.quality import PreviewLine, task_quality
from annotations.datasets.selectors import LevelState, TaskVerdict
from annotations.errors import Forbidden
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, Revision
from bidsdata.patterns import marker_pattern

logger = logging.getLogger(__name__)

CORRECT_REFUSED = "Only the project's owner and reviewers correct a level's annotation."


@dataclass
class LevelFix:
    """What the level page shows to fix a level."""

    issues: list[dict[str, Any]] = field(default_factory=list)  # issue rows naming this level
    rows: list[PreviewLine] = field(default_factory=list)  # preview rows carrying its value
    pending: bool = False  # the sidecar for the current annotations is being validated
    verdict: TaskVerdict | None = None

    @property
    def failing_rows(self) -> list[PreviewLine]:
        return [line for line in self.rows if not line.row.ok]


def level_fix(project: DatasetProject, level: DatasetLevel, states: list[LevelState]) -> LevelFix:
    """The issues of *level*'s task that name it and the preview rows with its value, from the stored result."""
    checked = task_quality(project, level.column.task, states=states)
    issues = [row for row in checked.result.issue_rows()
              if (row.get("state") is not None and row["state"].level.pk == level.pk)
              or (row.get("column") == level.column.name and row.get("level") == level.value)]
    column = level.column.name
    rows = [line for line in checked.preview  # a pattern column's level is its form: the rows of its strings
            if any(c == column and (v == level.value or (level.column.by_pattern and marker_pattern(v) == level.value))
                   for c, v in line.row.values) or any(s.level_id == level.pk for s in line.sources)]
    return LevelFix(issues=issues, rows=rows, pending=checked.pending, verdict=checked.verdict)


def correct_level(project: DatasetProject, state: LevelState, user: Any, hed: Any) -> Revision:
    """Store *user*'s correction of the level's annotation on the run it comes from (else its latest run).

    Refused like any correction: empty, unchanged or not validating (:class:`corrections.CorrectionRefused`, with
    the issues); a level with no finished run yet has nothing to correct: annotate it first."""
    if not can_correct_level(user, project):
        raise Forbidden(CORRECT_REFUSED)
    session_id = state.session_id or state.latest_session_id
    session = AnnotationSession.objects.filter(pk=session_id).first() if session_id else None
    if session is None:
        raise corrections.ReviewError("hed", "this level has no run yet: annotate it first, then correct its "
                                      "annotation")
    try:
        revision = corrections.correct_annotation(session, user, hed, level_owner=True)
    except corrections.CorrectionRefused as refused:
        # The review page keeps drafts; this page has no draft to save: the lab fixes it here, with the preview.
        errors = [i for i in refused.issues if i["severity"] == "error"]
        first = errors[0]["message"] if errors else "it does not validate"
        raise corrections.ReviewError("hed", f"The correction does not validate ({len(errors)} error"
                                  f"{'s' if len(errors) != 1 else ''}; first: {first}). Fix it: the check "
                                  "under the box shows each issue as you type.") from None
    logger.info("level %s corrected by %s on its page", state.level.pk, user)
    return revision
