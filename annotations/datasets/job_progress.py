"""Where a project's job is: its phase, its place in the task queue, and an estimate of the time left.

A job queued behind others used to sit at "0 of 13" with nothing saying why. Read from the stored runs
(nothing derived is stored): the phase from the project's status and its runs, the queue position from the
runs of other projects (and single runs) still waiting or running that were queued before this project's,
and the estimate from the average duration of the runs this job already finished, times the runs left,
over the job's concurrency.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from django.db.models import Q

from annotations.models import FINISHED_STATUSES, AnnotationSession, DatasetProject, JobStatus, SessionStatus

Phase = Literal["idle", "queued", "drafting", "annotating", "validating", "done", "failed"]
PHASE_LABELS: dict[str, str] = {
    "idle": "Ready", "queued": "Queued", "drafting": "Drafting", "annotating": "Annotating",
    "validating": "Validating", "done": "Done", "failed": "Failed"}


@dataclass(frozen=True)
class JobProgress:
    phase: Phase
    remaining: int = 0  # this project's runs queued or running
    running: int = 0
    runs_ahead: int = 0  # single runs queued or running before this project's
    jobs_ahead: int = 0  # other projects' jobs with runs queued or running before this project's
    average_seconds: float | None = None  # of this job's finished runs
    estimate_seconds: int | None = None
    concurrency: int = 1

    @property
    def phase_label(self) -> str:
        return PHASE_LABELS[self.phase]

    @property
    def ahead(self) -> int:
        return self.runs_ahead + self.jobs_ahead

    @property
    def queue_label(self) -> str:
        parts = [f"{n} {what}{'s' if n != 1 else ''}" for n, what in ((self.jobs_ahead, "job"),
                                                                         (self.runs_ahead, "run")) if n]
        return f"{' and '.join(parts)} ahead in the queue" if parts else "next in the queue"

    @property
    def estimate_label(self) -> str:
        if self.estimate_seconds is None:
            return "an estimate once the first level is annotated" if self.remaining else ""
        minutes = self.estimate_seconds / 60
        return f"about {self.estimate_seconds} s left" if minutes < 1 else f"about {math.ceil(minutes)} min left"

    @property
    def label(self) -> str:
        """One line for the page: the phase, then where it is."""
        if self.phase == "queued":
            return f"Queued: {self.queue_label}; {self.remaining} level{'s' if self.remaining != 1 else ''} to annotate"
        if self.phase == "drafting":
            tail = f", {self.estimate_label}" if self.estimate_seconds is not None else ""
            return f"Drafting each column's levels; then {self.remaining} run{'s' if self.remaining != 1 else ''}{tail}"
        if self.phase == "annotating":
            tail = f", {self.estimate_label}" if self.estimate_label else ""
            return f"Annotating: {self.remaining} level{'s' if self.remaining != 1 else ''} to go, " \
                   f"{self.concurrency} at a time{tail}"
        if self.phase == "validating":
            return "Validating each task's sidecar with its events files"
        return self.phase_label

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "remaining": self.remaining, "running": self.running,
                "queue": {"jobs_ahead": self.jobs_ahead, "runs_ahead": self.runs_ahead},
                "average_run_seconds": round(self.average_seconds, 1) if self.average_seconds is not None else None,
                "estimate_seconds": self.estimate_seconds, "label": self.label}


def _ahead(project: DatasetProject, since: Any) -> tuple[int, int]:
    """Single runs and other projects' jobs still queued or running, queued before *since*."""
    others = (AnnotationSession.objects.exclude(status__in=FINISHED_STATUSES).filter(created_at__lt=since)
              .filter(Q(dataset_level__isnull=True) | ~Q(dataset_level__column__task__project=project))
              .values_list("dataset_level__column__task__project_id", flat=True))
    found = list(others)
    return sum(1 for p in found if p is None), len({p for p in found if p is not None})


RECENT_RUNS = 50
"""Finished runs whose average times a job before any of its own has ended."""


def _recent_average() -> float | None:
    """The average time of the server's last finished runs: a job's first estimate, before its own runs end (a
    job of slow model calls showed none for minutes)."""
    spans = [(end - start).total_seconds() for start, end in AnnotationSession.objects.filter(
        status__in=FINISHED_STATUSES, started_at__isnull=False, finished_at__isnull=False)
        .order_by("-finished_at").values_list("started_at", "finished_at")[:RECENT_RUNS]]
    return sum(spans) / len(spans) if spans else None


def job_progress(project: DatasetProject) -> JobProgress:
    """Where *project*'s job is (three queries at most)."""
    concurrency = max(1, project.concurrency or 1)
    if project.status != JobStatus.ANNOTATING:
        phase: Phase = {JobStatus.VALIDATING: "validating", JobStatus.DONE: "done",
                        JobStatus.FAILED: "failed"}.get(project.status, "idle")  # type: ignore[assignment]
        return JobProgress(phase, concurrency=concurrency)
    mine = AnnotationSession.objects.filter(dataset_level__column__task__project=project)
    unfinished = list(mine.exclude(status__in=FINISHED_STATUSES).values_list("status", "created_at"))
    remaining, running = len(unfinished), sum(1 for status, _ in unfinished if status == SessionStatus.RUNNING)
    if not unfinished:
        return JobProgress("annotating", concurrency=concurrency)
    since = min(created for _, created in unfinished)
    # This job's finished runs: those that ended after its runs were queued (a job queues all of its at once).
    spans = [(end - start).total_seconds() for start, end in mine.filter(
        status__in=FINISHED_STATUSES, finished_at__gte=since, started_at__isnull=False).values_list(
        "started_at", "finished_at")]
    average = sum(spans) / len(spans) if spans else _recent_average()
    estimate = math.ceil(average * remaining / concurrency) if average is not None else None
    if running or spans:
        return JobProgress("annotating", remaining, running, average_seconds=average, estimate_seconds=estimate,
                           concurrency=concurrency)
    runs_ahead, jobs_ahead = _ahead(project, since)
    phase = "queued" if runs_ahead or jobs_ahead else "drafting"
    return JobProgress(phase, remaining, running, runs_ahead, jobs_ahead, average_seconds=average,
                       estimate_seconds=estimate, concurrency=concurrency)
