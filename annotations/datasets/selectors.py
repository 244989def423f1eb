"""Read-side of dataset projects: who sees which project, and each level's status and annotation.

A level's annotation is its latest accepted run (accepted as :mod:`annotations.review_rules` says), else its
latest valid run, else the uploaded sidecar's HED when it validates. A level whose meaning the lab never gave
(an open question, :mod:`bidsdata.questions`) shows ``needs_description`` whatever its runs say, unless a run
of it is queued or running; ``outcome`` keeps what its runs say. Status and annotation are computed from the
stored runs and reviews in a handful of queries per project (nothing derived is stored, so nothing can go
stale).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal, cast

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.shortcuts import get_object_or_404

from annotations.access import can_see_all_projects, check_edit_project, signed_in
from annotations.models import (
    FINISHED_STATUSES,
    AnnotationSession,
    ColumnKind,
    DatasetColumn,
    DatasetLevel,
    DatasetProject,
    DatasetTask,
    Review,
    SessionStatus,
    Verdict,
)
from annotations.review_rules import accepted, corrected, standing_corrections
from bidsdata.archive import DatasetFiles
from bidsdata.columns import made_up_description
from bidsdata.questions import level_needs_answer

LevelStatus = Literal["pending", "running", "valid", "invalid", "reviewed", "needs_description"]
STATUSES: tuple[LevelStatus, ...] = ("pending", "running", "valid", "invalid", "reviewed", "needs_description")
STATUS_LABELS: dict[str, str] = {status: status.replace("_", " ").capitalize() for status in STATUSES}
Source = Literal["review", "correction", "run", "existing", ""]


def project_for(user: Any, pk: Any) -> DatasetProject:
    """*user*'s view of project *pk*; a project they may not see is a 404, as one that does not exist."""
    return get_object_or_404(visible_projects(user), pk=pk)


def project_for_edit(user: Any, pk: Any) -> DatasetProject:
    """*user*'s project *pk* for a request that changes it or starts its runs: a 404 unseen (:func:`project_for`),
    a 403 seen but not editable (``access.check_edit_project``: reviewers see every project, only its owner and
    staff change it). Pages and the API alike: the 403 reaches the status page or the API's answer."""
    project = project_for(user, pk)
    check_edit_project(user, project)
    return project


def visible_projects(user: Any) -> QuerySet[DatasetProject]:
    """Projects *user* may see (``access.can_see_all_projects``): their own; staff and reviewers see every
    project."""
    qs = DatasetProject.objects.all()
    if not signed_in(user):
        return qs.none()
    return qs if can_see_all_projects(user) else qs.filter(user=user)


@dataclass
class LevelState:
    """What a level stands at: its status, the annotation the sidecar gets, and where that came from."""

    level: DatasetLevel
    status: LevelStatus
    annotation: str = ""
    source: Source = ""
    session_id: Any = None  # the run the annotation comes from
    latest_session_id: Any = None  # the newest run, whatever its outcome
    runs: int = 0
    queued: bool = False
    outcome: LevelStatus = "pending"  # the status its runs give, open question or not
    open_question: bool = False
    sidecar_hed: str | None = None  # what the stored sidecar puts on its rows (set by pages that show it)

    @property
    def column(self) -> DatasetColumn:
        return self.level.column

    @property
    def status_label(self) -> str:
        return "Queued" if self.queued else STATUS_LABELS[self.status]


def has_open_question(level: DatasetLevel) -> bool:
    """Whether the lab has yet to say what *level* means (its column must be attached)."""
    return level_needs_answer(level.column.name, level.value, level.description, level.needs_description)


@dataclass
class _Run:
    id: Any
    status: str
    is_valid: bool | None
    final: str
    machine: str
    created_at: Any
    accepted_at: Any = None


def _runs_by_level(scope: dict[str, Any]) -> dict[int, list[_Run]]:
    """The runs of the levels *scope* selects (filter arguments on :class:`AnnotationSession`), oldest first,
    each with when it was accepted. Filters through joins, never through a list of thousands of ids (SQLite
    refuses too many variables)."""
    by_level: dict[int, list[_Run]] = {}
    runs: dict[Any, _Run] = {}
    rows = (AnnotationSession.objects.filter(**scope).order_by("created_at", "id")
            .values_list("id", "dataset_level_id", "status", "is_valid", "final_annotation", "machine_annotation",
                         "created_at"))
    for sid, level_id, status, is_valid, final, machine, created in rows:
        run = _Run(sid, status, is_valid, final, machine, created)
        runs[sid] = run
        by_level.setdefault(level_id, []).append(run)
    if not runs:
        return by_level
    # A run is accepted as review_rules says (more accepting reviews than rejecting ones, or a standing
    # correction); its accepting reviews and corrections date the acceptance; the latest one wins the level.
    of_runs = {f"session__{key}": value for key, value in scope.items()}
    verdicts: dict[Any, Counter[str]] = {}
    accepting: list[tuple[Any, Any]] = []
    for sid, verdict, when in (Review.objects.filter(verdict__in=(Verdict.ACCEPT, Verdict.REJECT), **of_runs)
                               .values_list("session_id", "verdict", "updated_at")):
        verdicts.setdefault(sid, Counter())[verdict] += 1
        if verdict == Verdict.ACCEPT:
            accepting.append((sid, when))
    standing = [(sid, when) for sid, when in accepting
                if accepted(verdicts[sid][Verdict.ACCEPT], verdicts[sid][Verdict.REJECT])]
    corrected = standing_corrections(**of_runs).values_list("session_id", "created_at")
    for sid, when in [*standing, *corrected]:
        run = runs.get(sid)
        if run is not None and (run.accepted_at is None or when > run.accepted_at):
            run.accepted_at = when
    return by_level


def _state_of(level: DatasetLevel, runs: list[_Run], *, open_question: bool = False) -> LevelState:
    latest = runs[-1] if runs else None
    state = LevelState(level=level, status="pending", latest_session_id=latest.id if latest else None,
                       runs=len(runs))
    accepted = [r for r in runs if r.accepted_at is not None and r.final]
    valid = [r for r in runs if r.is_valid and r.final and r.status in FINISHED_STATUSES]
    if accepted:
        best = max(accepted, key=lambda r: r.accepted_at)
        state.status, state.annotation, state.session_id = "reviewed", best.final, best.id
        state.source = "correction" if corrected(best.final, best.machine) else "review"
    elif valid:
        best = valid[-1]
        state.status, state.annotation, state.session_id, state.source = "valid", best.final, best.id, "run"
    elif level.existing_hed and level.existing_is_valid:
        state.status, state.annotation, state.source = "valid", level.existing_hed, "existing"
    elif (runs and latest is not None and latest.status in FINISHED_STATUSES) or level.existing_hed:
        state.status = "invalid"
    if latest is not None and latest.status == SessionStatus.RUNNING:
        state.status = "running"
    elif latest is not None and latest.status == SessionStatus.QUEUED:
        state.status, state.queued = "pending", True  # waiting for its turn in the job
    state.outcome, state.open_question = state.status, open_question
    if open_question and state.status != "running" and not state.queued:
        state.status = "needs_description"  # never valid-looking while nobody said what the level means
    return state


def project_levels(project: DatasetProject, *, task: str | None = None) -> list[DatasetLevel]:
    """The categorical levels of *project* (of one *task*), in task/column/level order, each with its column
    and the column's task attached.

    Three plain queries and a sort in Python: ordering across the joins in SQL would carry each task's
    stored sidecar JSON through the sort (a sidecar declaring 100,000 levels filled the disk that way).
    """
    tasks = {t.pk: t for t in DatasetTask.objects.filter(project=project)
             .only("id", "project_id", "name", "sidecar_name")}
    columns = {c.pk: c for c in DatasetColumn.objects.filter(task__project=project, kind=ColumnKind.CATEGORICAL)
               .defer("sample_values", "template_issues")}
    for column in columns.values():
        column.task = tasks[column.task_id]
    levels = DatasetLevel.objects.filter(column_id__in=list(columns)).order_by()
    if task is not None:
        levels = levels.filter(column__task__name=task)
    found = list(levels)
    for level in found:
        level.column = columns[level.column_id]
    found.sort(key=lambda lv: (lv.column.task.name, lv.column.position, lv.value))
    return found


def level_states(project: DatasetProject, *, task: str | None = None) -> list[LevelState]:
    """Every level of the project's categorical columns with its state, in task/column/level order."""
    levels = project_levels(project, task=task)
    scope: dict[str, Any] = {"dataset_level__column__task__project": project}
    if task is not None:
        scope["dataset_level__column__task__name"] = task
    runs = _runs_by_level(scope) if levels else {}
    return [_state_of(lv, runs.get(lv.pk, []), open_question=has_open_question(lv)) for lv in levels]


@dataclass(frozen=True)
class _LevelFacts:
    """What a level's status needs besides its runs (a list page reads no more of a level than this)."""

    pk: int
    existing_hed: bool
    existing_is_valid: bool | None


def progress_of(projects: list[DatasetProject]) -> dict[Any, dict[str, Any]]:
    """:func:`progress` of several projects (a list page) in four queries, whatever their number and size.

    Open questions count as on the project page (a level nobody described is ``needs_description``), so the
    list, the page and the API never disagree on a project's states."""
    facts = (DatasetLevel.objects.filter(column__task__project__in=projects, column__kind=ColumnKind.CATEGORICAL)
             .order_by().annotate(has_hed=ExpressionWrapper(~Q(existing_hed=""), output_field=BooleanField()))
             .values_list("pk", "column__task__project_id", "has_hed", "existing_is_valid", "column__name", "value",
                          "description", "needs_description"))
    runs = _runs_by_level({"dataset_level__column__task__project__in": projects}) if projects else {}
    states: dict[Any, list[LevelState]] = {p.pk: [] for p in projects}
    for pk, project_id, has_hed, is_valid, column, value, description, undescribed in facts:
        level = cast(DatasetLevel, _LevelFacts(pk, bool(has_hed), is_valid))
        open_question = level_needs_answer(column, value, description, undescribed)
        states[project_id].append(_state_of(level, runs.get(pk, []), open_question=open_question))
    return {pk: progress(found) for pk, found in states.items()}


def current_status(project: DatasetProject) -> str:
    """The job's phase as its job wrote it (``validating`` between the last run's end and ``done``).

    Read only: the job, or the sweep for a dead job (:mod:`.recovery`), writes it, never a page or the API."""
    return project.status


def level_state(level: DatasetLevel) -> LevelState:
    return _state_of(level, _runs_by_level({"dataset_level": level}).get(level.pk, []),
                     open_question=has_open_question(level))


def status_counts(states: list[LevelState]) -> dict[str, int]:
    """How many levels stand at each status: the one count the header, the filters, the task cards and the
    API's ``progress.states`` all show."""
    counts = Counter(s.status for s in states)
    return {"total": len(states), **{status: counts.get(status, 0) for status in STATUSES}}


def progress(states: list[LevelState]) -> dict[str, Any]:
    """The progress figures: levels in total, annotated (``done``), valid (incl. reviewed), reviewed, and the
    count of each status (:func:`status_counts`).

    ``done`` counts what the runs say (``outcome``): a level waiting for its description has been annotated.
    ``valid`` and ``reviewed`` count the status, as the filters do: a level nobody described is never valid,
    whatever its run says (the header once said "10 valid" beside a filter "Valid 0")."""
    outcomes = Counter(s.outcome for s in states)
    counts = status_counts(states)
    return {"total": len(states),
            "done": sum(outcomes.get(status, 0) for status in ("valid", "invalid", "reviewed")),
            "valid": counts["valid"] + counts["reviewed"],
            "reviewed": counts["reviewed"],
            "states": {status: counts[status] for status in STATUSES}}


ROWS_PASS_ENOUGH = 0.5
"""Below this share of rows passing hedtools' event checks, a valid sidecar still needs work: valid HED that
fails most events is not a finished task."""

VerdictState = Literal["validating", "invalid", "valid", "needs_work", "awaiting_answers"]


@dataclass(frozen=True)
class TaskVerdict:
    """A task's verdict: its sidecar's validity, and side by side the rows with HED, the rows passing the event
    checks and the levels that need a description (an open question, or HED of only generic tags or names:
    :func:`bidsdata.quality.vague_levels`). "Valid" alone, in green, only when every row has HED, most pass
    and no level waits for the lab: valid HED on rows that have none says nothing."""

    state: VerdictState
    rows: int = 0
    rows_ok: int = 0
    unanswered: int = 0  # levels the sidecar leaves without HED (a question open, a run not valid)
    unanswered_columns: int = 0  # of those, value columns left without a template
    rows_hed: int | None = None  # rows that get any HED (None: not known, as in a result stored before)
    levels: int = 0  # the task's categorical levels
    undescribed: int = 0  # of those, levels that need a description

    @property
    def percent(self) -> int | None:
        return round(100 * self.rows_ok / self.rows) if self.rows else None

    @property
    def done(self) -> bool:
        return self.state == "valid"

    @property
    def head(self) -> str:
        return {"validating": "Validating", "invalid": "Not valid yet", "valid": "Valid", "needs_work": "Valid",
                "awaiting_answers": "Valid"}[self.state]

    @property
    def facts(self) -> list[str]:
        """The figures beside the validity, each a short phrase: rows annotated, rows passing, levels."""
        found: list[str] = []
        if self.state == "validating":
            return found
        if self.unanswered:
            left = without_hed(self.unanswered - self.unanswered_columns, self.unanswered_columns)
            found.append(f"{left} without HED yet")
        if self.rows_hed is not None and self.rows:
            found.append(f"{self.rows_hed:,} of {self.rows:,} rows annotated")
        if self.rows:
            found.append(f"{self.rows_ok:,} of {self.rows:,} rows pass the event checks")
        elif self.rows_hed is not None:
            found.append("no events row checked")
        if self.undescribed:
            found.append(f"{self.undescribed:,} of {self.levels:,} level{'s' if self.levels != 1 else ''} "
                         f"need{'s' if self.undescribed == 1 else ''} a description")
        return found

    @property
    def label(self) -> str:
        """The verdict in one line: ``Valid - 0 of 22,332 rows annotated - 0 of 22,332 rows pass the event checks``."""
        return " - ".join([self.head, *self.facts])

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "label": self.label, "done": self.done, "rows_ok_percent": self.percent,
                "rows": self.rows, "rows_hed": self.rows_hed, "rows_ok": self.rows_ok, "levels": self.levels,
                "levels_need_description": self.undescribed, "without_hed": self.unanswered}


def without_hed(levels: int, columns: int) -> str:
    """What a sidecar leaves without HED, in words: "2 levels", "1 column", "2 levels and 3 columns"."""
    parts = [f"{levels} level{'s' if levels != 1 else ''}"] if levels or not columns else []
    parts += [f"{columns} column{'s' if columns != 1 else ''}"] if columns else []
    return " and ".join(parts)


def task_verdict(*, valid: bool, pending: bool, rows: int = 0, rows_ok: int = 0, unanswered: int = 0,
                 unanswered_columns: int = 0, rows_hed: int | None = None, levels: int = 0,
                 undescribed: int = 0) -> TaskVerdict:
    """The one verdict the task card, the sidecar page, the level page and the API give a task
    (:class:`TaskVerdict`).

    *valid* is hedtools' word on the sidecar and its events files; *unanswered* counts the levels it leaves
    without HED (a question the lab has yet to answer, a run that is not valid): a sidecar that validates is
    never called "not valid" for them, nor "valid" as if it were complete. It is ``valid`` (done) only when
    every row checked has HED, at least :data:`ROWS_PASS_ENOUGH` of them pass, and no level needs a
    description; rows not annotated or failing, or levels that say nothing, make it ``needs_work``."""
    state: VerdictState
    if pending:
        state = "validating"
    elif not valid:
        state = "invalid"
    elif unanswered:
        state = "awaiting_answers"
    elif (rows and rows_ok / rows < ROWS_PASS_ENOUGH) or undescribed or (
            rows_hed is not None and (not rows or rows_hed < rows)):
        state = "needs_work"
    else:
        state = "valid"
    return TaskVerdict(state, rows, rows_ok, unanswered, unanswered_columns, rows_hed, levels, undescribed)


def next_to_review(states: list[LevelState]) -> LevelState | None:
    """The first level with a run to review: invalid ones first (they need a correction), then valid ones."""
    for wanted in ("invalid", "valid"):
        for state in states:
            if state.outcome == wanted and state.latest_session_id is not None:
                return state
    return None


def level_text(level: DatasetLevel) -> str:
    """What the annotator reads for a level: its description, else the one made up from the names
    (:func:`bidsdata.columns.made_up_description`: a code stays as written, ``-1`` is not ``1``)."""
    description = level.description.strip() or made_up_description(level.column.name, level.value)
    return description[:4000]


def validation_version(project: DatasetProject) -> str | list[str]:
    """What the sidecars are validated against: the HEDVersion the dataset declares, as a BIDS validator
    would, else the schema the levels were annotated with."""
    return project.hed_version or project.schema_version


def project_files(project: DatasetProject) -> DatasetFiles:
    return DatasetFiles(texts=dict(project.files.values_list("path", "text")))
