"""Validated sidecars, stored: pages and the API answer from them at once, never running hedtools.

Composing and validating a task's sidecar reads every events row (minutes for a study of hundreds of
files), so it runs off the request path: the dataset job does it when its runs end, and a background task
when a page finds the stored result older than the annotations (an edit, a review, an answered question).
Each result is stored with the digest of what it was made from (:func:`.sidecars.task_digest`); a page
whose digest has no result yet shows the last one, marked "validating", and asks for the new one once.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import IO, Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django_tasks import task as background_task

from annotations.datasets.selectors import LevelState, level_states, project_files, validation_version
from annotations.datasets.sidecars import TaskSidecar, task_digest, task_sidecar
from annotations.models import DatasetProject, DatasetTask, SidecarResult
from annotations.runs.broadcasts import broadcast_progress
from bidsdata import quality as hed_quality
from bidsdata.archive import DatasetFiles
from bidsdata.assembly import DroppedTags
from bidsdata.composition import Composition
from bidsdata.sidecar import MissingAnnotation, SidecarIssue, write_dataset_zip

logger = logging.getLogger(__name__)

KEEP_RESULTS = 3
"""Results kept per task: the current one and a couple before it (a page may still show them)."""
ASK_AGAIN_SECONDS = 600
"""A result asked for and not stored within this time (a worker died) is asked for again."""


def quality_limits() -> dict[str, int]:
    """How much a task's figures examine: ``HEDIT_QUALITY_MAX_FILES`` / ``HEDIT_QUALITY_MAX_ROWS`` settings."""
    return {"max_files": int(getattr(settings, "HEDIT_QUALITY_MAX_FILES", hed_quality.MAX_FILES)),
            "max_rows": int(getattr(settings, "HEDIT_QUALITY_MAX_ROWS", hed_quality.MAX_ROWS))}


def _checked(project: DatasetProject, task: DatasetTask, result: TaskSidecar, files: DatasetFiles | None
             ) -> dict[str, Any]:
    """hedtools' event checks over the task's rows (the quality line) and its first rows (the preview)."""
    files = project_files(project) if files is None else files
    events = {path: files.texts[path] for path in task.events_files if path in files.texts}
    version = validation_version(project)
    figures = hed_quality.quality(result.sidecar, events, version, **quality_limits())
    preview = hed_quality.row_preview(result.sidecar, events, version, limit=hed_quality.PREVIEW_ROWS)
    return {"figures": asdict(figures), "preview": [asdict(row) for row in preview]}


def stored_quality(result: TaskSidecar) -> tuple[hed_quality.Quality, list[hed_quality.PreviewRow]] | None:
    """The figures and preview stored with *result* (None while it is being validated)."""
    found = result.checked
    if not found:
        return None
    preview = [hed_quality.PreviewRow(**{
        **row, "values": [tuple(v) for v in row["values"]], "sources": [tuple(x) for x in row["sources"]],
        "issues": [hed_quality.RowIssue(**i) for i in row["issues"]]}) for row in found.get("preview", [])]
    return hed_quality.Quality(**found["figures"]), preview


def _store(result: TaskSidecar, digest: str) -> None:
    composition = result.composition
    row = {"quality": result.checked,"sidecar": result.sidecar, "issues": [i.to_dict() for i in result.issues],
           "missing": [asdict(m) for m in result.missing], "dropped": [asdict(d) for d in result.dropped],
           "composition": {"roles": composition.roles, "factors": composition.factors,
                           "labelled": composition.labelled, "fallback": composition.fallback}
           if composition is not None else {}}
    try:
        with transaction.atomic():
            SidecarResult.objects.update_or_create(task=result.task, digest=digest, defaults=row)
    except IntegrityError:  # stored by another worker at the same moment: the same content
        return
    old = SidecarResult.objects.filter(task=result.task).values_list("pk", flat=True)[KEEP_RESULTS:]
    SidecarResult.objects.filter(pk__in=list(old)).delete()


def _loaded(task: DatasetTask, row: SidecarResult, states: list[LevelState], *, pending: bool) -> TaskSidecar:
    mine = [s for s in states if s.level.column.task_id == task.pk]
    kept = row.composition or {}
    composition = Composition(annotations={}, roles=kept.get("roles", {}), factors=kept.get("factors", []),
                              labelled=[tuple(x) for x in kept.get("labelled", [])],
                              fallback=kept.get("fallback", ""))
    issues = [SidecarIssue(**{**i, "related": tuple(tuple(r) for r in i.get("related", ()))}) for i in row.issues]
    dropped = [DroppedTags(**{**d, "items": tuple(d.get("items", ()))}) for d in row.dropped]
    return TaskSidecar(task=task, sidecar=row.sidecar, missing=[MissingAnnotation(**m) for m in row.missing],
                       issues=issues, states=mine, dropped=dropped, composition=composition, pending=pending,
                       checked=row.quality)


def refresh_sidecar(project: DatasetProject, task: DatasetTask, *, states: list[LevelState] | None = None,
                    files: DatasetFiles | None = None) -> TaskSidecar:
    """Compose and validate *task*'s sidecar now and store it (the job, the command line, the background task)."""
    states = level_states(project, task=task.name) if states is None else states
    digest = task_digest(project, task, states)
    row = SidecarResult.objects.filter(task=task, digest=digest).first()
    if row is not None:
        return _loaded(task, row, states, pending=False)
    files = project_files(project) if files is None else files
    result = task_sidecar(project, task, states=states, files=files)
    result.checked = _checked(project, task, result, files)
    _store(result, digest)
    return result


def current_sidecar(project: DatasetProject, task: DatasetTask, *, states: list[LevelState] | None = None,
                    ask: bool = True) -> TaskSidecar:
    """The stored result for *task*'s current annotations; else the last one stored (``pending``), or an empty
    pending one, and (with *ask*) the background task asked, once, to compute the current one."""
    states = level_states(project, task=task.name) if states is None else states
    digest = task_digest(project, task, states)
    rows = list(SidecarResult.objects.filter(task=task).order_by("-created_at", "-id")[:KEEP_RESULTS])
    row = next((r for r in rows if r.digest == digest), None)
    if row is not None:
        return _loaded(task, row, states, pending=False)
    if ask and cache.add(f"hedit:sidecar-asked:{task.pk}:{digest}", 1, timeout=ASK_AGAIN_SECONDS):
        transaction.on_commit(lambda: validate_sidecar_task.enqueue(str(project.pk), task.pk))
    if rows:
        return _loaded(task, rows[0], states, pending=True)
    mine = [s for s in states if s.level.column.task_id == task.pk]
    return TaskSidecar(task=task, sidecar={}, states=mine, pending=True)


def refresh_project(project: DatasetProject) -> list[TaskSidecar]:
    """Every task's sidecar computed and stored (the dataset job's last step, the command line)."""
    states = level_states(project)
    return [refresh_sidecar(project, task, states=states) for task in project.tasks.all()]


def write_zip(project: DatasetProject, out: IO[bytes]) -> None:
    """The events files and sidecars the upload kept (never recordings), each task's new sidecar in place."""
    sidecars = {r.task.sidecar_name: r.sidecar for r in refresh_project(project)}
    write_dataset_zip(out, sidecars, files=project_files(project))


@background_task()
def validate_sidecar_task(project_id: str, task_id: int) -> str:
    """Compute and store one task's sidecar; tell the project's live pages it is there."""
    task = DatasetTask.objects.select_related("project").filter(pk=task_id, project_id=project_id).first()
    if task is None:
        return "gone"
    result = refresh_sidecar(task.project, task)
    try:
        async_to_sync(broadcast_progress)(project_id)
    except Exception:
        logger.warning("could not tell dataset %s's pages its sidecar is validated", project_id, exc_info=True)
    return "valid" if result.is_valid else "invalid"


__all__ = ["current_sidecar", "refresh_project", "refresh_sidecar", "validate_sidecar_task", "write_zip"]
