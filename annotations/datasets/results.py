"""Validated sidecars, stored: pages and the API answer from them at once, never running hedtools.

Composing and validating a task's sidecar reads every events row (minutes for a study of hundreds of
files), so it runs off the request path: the dataset job does it when its runs end, and a background task
when a page finds the stored result older than the annotations (an edit, a review, an answered question).
Each result is stored with the digest of what it was made from (:func:`.sidecars.task_digest`); a page
whose digest has no result yet shows the last one, marked "validating", and asks for the new one once
per lease (:mod:`.leases`: a computation whose process died is asked for again).
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict
from typing import IO, Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import IntegrityError, transaction
from django_tasks import task as background_task

from agents.schema import as_hed_version
from annotations.datasets.computations import once
from annotations.datasets.leases import ask_task, heartbeat, release_task, renew_task
from annotations.datasets.selectors import LevelState, level_states, project_files, validation_version
from annotations.datasets.sidecars import TaskSidecar, sidecar_key, task_digest, task_events, task_sidecar
from annotations.hooks import REVISION_STORED
from annotations.models import DatasetProject, DatasetTask, JobStatus, SidecarResult
from annotations.runs.broadcasts import broadcast_progress
from bidsdata import quality as hed_quality
from bidsdata.archive import DatasetFiles
from bidsdata.assembly import DroppedTags
from bidsdata.composition import Composition
from bidsdata.issues import SidecarIssue
from bidsdata.patterns import marker_pattern
from bidsdata.pipeline import quality_figures
from bidsdata.pool import configure_pool
from bidsdata.release import release_files
from bidsdata.sidecar import MissingAnnotation, write_dataset_zip

logger = logging.getLogger(__name__)

KEEP_RESULTS = 3
"""Results kept per task: the current one and a couple before it (a page may still show them)."""
STORE_PASSES = 3
"""How many times the job's validating phase looks again when an edit changed a digest under it."""


def quality_limits() -> dict[str, int]:
    """How much a task's figures examine: ``HEDIT_QUALITY_MAX_FILES`` / ``HEDIT_QUALITY_MAX_ROWS`` settings."""
    return {"max_files": int(getattr(settings, "HEDIT_QUALITY_MAX_FILES", hed_quality.MAX_FILES)),
            "max_rows": int(getattr(settings, "HEDIT_QUALITY_MAX_ROWS", hed_quality.MAX_ROWS))}


def _checked(project: DatasetProject, task: DatasetTask, result: TaskSidecar, files: DatasetFiles | None
             ) -> dict[str, Any]:
    """The pipeline's last step (:func:`bidsdata.pipeline.quality_figures`) on the sidecar *result* holds."""
    return quality_figures(result.sidecar, task_events(project, task, files), validation_version(project),
                           quality_limits())


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
    # The project's acceptance rules are checked on the new revision (usage sits above datasets: the hook).
    for stored in REVISION_STORED.targets():
        stored(result.task, digest)
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
    """Compose and validate *task*'s sidecar now, in a worker of the shared validation pool, and store it (the
    job, the command line, the background task, a download).

    One computation per (task, digest) at a time (:func:`.computations.once`): concurrent askers in this
    process share it, another process waits for the stored row rather than computing it again.
    """
    states = level_states(project, task=task.name) if states is None else states
    digest = task_digest(project, task, states)

    def stored() -> TaskSidecar | None:
        row = SidecarResult.objects.filter(task=task, digest=digest).first()
        return _loaded(task, row, states, pending=False) if row is not None else None

    def compute() -> TaskSidecar:
        configure_pool(getattr(settings, "HEDIT_VALIDATION_WORKERS", 0))  # the setting, before any pool starts
        found = project_files(project) if files is None else files
        # In a worker of the shared pool: composing, validating and the figures never hold this server's GIL.
        result = task_sidecar(project, task, states=states, files=found, quality_limits=quality_limits(),
                              in_pool=True)
        if result.checked_for != sidecar_key(result.sidecar):  # changed after its figures (a task_sidecar wrapper)
            result.checked = _checked(project, task, result, found)
        _store(result, digest)
        return result

    return once(f"sidecar:{task.pk}:{digest}", compute, stored=stored)


def current_sidecar(project: DatasetProject, task: DatasetTask, *, states: list[LevelState] | None = None,
                    ask: bool = True) -> TaskSidecar:
    """The stored result for *task*'s current annotations; else the last one stored (``pending``), or an empty
    pending one, and (with *ask*) the background task asked to compute the current one: once while a live
    process computes it (:func:`.leases.ask_task`), again once its lease lapsed (that process died)."""
    states = level_states(project, task=task.name) if states is None else states
    digest = task_digest(project, task, states)
    rows = list(SidecarResult.objects.filter(task=task).order_by("-created_at", "-id")[:KEEP_RESULTS])
    row = next((r for r in rows if r.digest == digest), None)
    if row is not None:
        return _loaded(task, row, states, pending=False)
    if ask and ask_task(task, digest):  # asked once per lease: again only if its computation died
        transaction.on_commit(lambda: validate_sidecar_task.enqueue(str(project.pk), task.pk))
    if rows:
        return _loaded(task, rows[0], states, pending=True)
    mine = [s for s in states if s.level.column.task_id == task.pk]
    return TaskSidecar(task=task, sidecar={}, states=mine, pending=True)


_VALUE = re.compile(r"/[-+]?\d+(?:\.\d+)?(?=\s*[,)]|\s*$)")
"""A tag's number value (``Item-index/12``), where a pattern column's form shows ``#``."""


def sidecar_heds(project: DatasetProject, task_ids: list[int] | None = None) -> dict[tuple[int, str, str], str]:
    """(task id, column, level) -> the HED the task's newest stored sidecar puts on that level's rows (composed:
    what the rows get, not the level's own annotation); a pattern column's form gets its first string's, each
    number value as ``#``."""
    rows = SidecarResult.objects.filter(task__project=project).order_by("task_id", "-created_at", "-id")
    if task_ids is not None:
        rows = rows.filter(task_id__in=task_ids)
    newest: dict[int, int] = {}
    for task_id, pk in rows.values_list("task_id", "id"):  # ids first: only the newest sidecar of each is read
        newest.setdefault(task_id, pk)
    found: dict[tuple[int, str, str], str] = {}
    for task_id, sidecar in SidecarResult.objects.filter(pk__in=list(newest.values())).values_list("task_id",
                                                                                                    "sidecar"):
        for column, entry in (sidecar or {}).items():
            hed = entry.get("HED") if isinstance(entry, dict) else None
            if not isinstance(hed, dict):
                continue
            for level, text in hed.items():
                found[(task_id, column, str(level))] = str(text)
                form = marker_pattern(str(level))
                if form != str(level):  # a pattern column's form: its strings' HED with their values as #
                    found.setdefault((task_id, column, form), _VALUE.sub("/#", str(text)))
    return found


def stale_tasks(project: DatasetProject, states: list[LevelState] | None = None, *,
                ask: bool = True) -> list[DatasetTask]:
    """The tasks whose sidecar for the current annotations is not stored (an edit, a review or an answer came
    after the job); with *ask*, the background task asked for each (once per lease, as a page asks)."""
    states = level_states(project) if states is None else states
    tasks = list(project.tasks.all())
    stored = set(SidecarResult.objects.filter(task__project=project).values_list("task_id", "digest"))
    stale = []
    for task in tasks:
        digest = task_digest(project, task, states)
        if (task.pk, digest) in stored:
            continue
        stale.append(task)
        if ask and ask_task(task, digest):
            transaction.on_commit(lambda task=task: validate_sidecar_task.enqueue(str(project.pk), task.pk))
    return stale


def settled_status(project: DatasetProject, states: list[LevelState] | None = None) -> str:
    """The project's status as it is true now: the job's ``done`` stands only while every task's sidecar for the
    current annotations is stored (so the sidecar answers 200 at once); after an edit, a correction or a review
    it reads ``validating`` until the background task stored it (asked for here). Other phases are the job's."""
    if project.status != JobStatus.DONE:
        return project.status
    return JobStatus.VALIDATING if stale_tasks(project, states) else project.status


def store_current(project: DatasetProject) -> None:
    """Every task's sidecar for the project's current annotations stored (the dataset job's validating phase).

    Each task still without one is marked asked (pages wait for this rather than ask the background task),
    then computed. An edit made meanwhile changes a digest: the loop looks again, a few times, so the job
    writes ``done`` only with the current results stored.
    """
    for _ in range(STORE_PASSES):
        states = level_states(project)
        tasks = list(project.tasks.all())
        digests = {task.pk: task_digest(project, task, states) for task in tasks}
        stored = set(SidecarResult.objects.filter(task__project=project).values_list("task_id", "digest"))
        todo = [task for task in tasks if (task.pk, digests[task.pk]) not in stored]
        if not todo:
            return
        for task in todo:
            ask_task(task, digests[task.pk])
        for task in todo:
            refresh_sidecar(project, task, states=states)
            release_task(task.pk, digests[task.pk])
    logger.warning("dataset %s: its annotations kept changing while its sidecars were validated", project.pk)


def refresh_project(project: DatasetProject) -> list[TaskSidecar]:
    """Every task's sidecar computed and stored (the dataset job's last step, the command line)."""
    states = level_states(project)
    return [refresh_sidecar(project, task, states=states) for task in project.tasks.all()]


def write_zip(project: DatasetProject, out: IO[bytes]) -> None:
    """The events files and sidecars the upload kept (never recordings), each task's new sidecar in place."""
    sidecars = {r.task.sidecar_name: r.sidecar for r in refresh_project(project)}
    # dataset_description.json with the HEDVersion the sidecars were validated with, and a note saying so.
    files = release_files(project_files(project), as_hed_version(validation_version(project)), sidecars,
                          name=project.name)
    write_dataset_zip(out, sidecars, files=files)


@background_task()
def validate_sidecar_task(project_id: str, task_id: int) -> str:
    """Compute and store one task's sidecar; tell the project's live pages it is there."""
    task = DatasetTask.objects.select_related("project").filter(pk=task_id, project_id=project_id).first()
    if task is None:
        return "gone"
    states = level_states(task.project, task=task.name)
    digest = task_digest(task.project, task, states)
    # The ask's lease stays fresh while this process computes; killed, it lapses and the result is asked again.
    with heartbeat(lambda: renew_task(task_id)):
        result = refresh_sidecar(task.project, task, states=states)
    release_task(task_id, digest)
    try:
        async_to_sync(broadcast_progress)(project_id)
    except Exception:
        logger.warning("could not tell dataset %s's pages its sidecar is validated", project_id, exc_info=True)
    return "valid" if result.is_valid else "invalid"


__all__ = [
    "current_sidecar",
    "refresh_project",
    "refresh_sidecar",
    "settled_status",
    "sidecar_heds",
    "stale_tasks",
    "store_current",
    "validate_sidecar_task",
    "write_zip",
]
