"""Which sidecar a project's task is searched with, and its events as the pure search reads them.

A task has revisions: each stored, validated sidecar (:class:`annotations.models.SidecarResult`, named by the
digest of what it was made from; the newest few are kept) and the lab's upload as it came (``uploaded``).
A search reads the newest stored one unless asked for another; a task with none stored yet reads the upload.
Each events file gets the sidecar it reads under BIDS inheritance: the dataset's other ``*_events.json`` as
uploaded, the revision's sidecar at the root, and the lower sidecars that redefine one of its columns with
its HED (as the download writes them: :func:`bidsdata.inheritance.lower_sidecars`).

Events texts are read from the database only when a search process asks for them (a revision it has not
assembled yet): a file's key names the project and path instead of its text, which never changes after
the upload.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotations.datasets.selectors import level_states, validation_version
from annotations.datasets.sidecars import task_digest
from annotations.errors import NotFound
from annotations.models import DatasetProject, DatasetTask, SidecarResult
from bidsdata.archive import DatasetFiles
from bidsdata.inheritance import effective_sidecar, lower_sidecars
from bidsdata.members import EVENTS_JSON_SUFFIX
from bidsdata.usage import EventsSource, TaskEvents
from bidsdata.usage.sources import digest, source_key

UPLOADED = "uploaded"
"""The revision that is the lab's upload, as it came."""
TASK_FIELDS = ("id", "project_id", "name", "sidecar_name", "events_files")
"""What a search reads of a task (never its stored sidecar, large, which pages must not sort)."""


def project_tasks(project: DatasetProject) -> list[DatasetTask]:
    """*project*'s tasks by name, with only what a search and the tabs read (:data:`TASK_FIELDS`)."""
    return list(project.tasks.only(*TASK_FIELDS))


@dataclass(frozen=True)
class Revision:
    """One sidecar a task can be searched with: ``name`` is a stored result's digest, or :data:`UPLOADED`."""

    name: str
    sidecar: dict[str, Any] | None
    """The task's root sidecar of this revision (None: the upload's own sidecars)."""
    created_at: datetime | None = None
    current: bool = False
    """Stored for the task's current annotations (False: a newer one is being validated, or an older one)."""

    @property
    def label(self) -> str:
        if self.name == UPLOADED:
            return "as uploaded"
        when = self.created_at.strftime("%Y-%m-%d %H:%M") if self.created_at else ""
        return f"validated {when} ({self.name[:8]})" + (" · current" if self.current else "")


def task_revisions(project: DatasetProject, task: DatasetTask, *, current: str | None = None) -> list[Revision]:
    """The task's stored sidecars, newest first, then the upload. *current* is the digest of the task's current
    annotations when the caller knows it (else it is computed)."""
    if current is None:
        current = task_digest(project, task, level_states(project, task=task.name))
    rows = SidecarResult.objects.filter(task=task).order_by("-created_at", "-id").only(
        "digest", "sidecar", "created_at")
    found = [Revision(name=r.digest, sidecar=r.sidecar, created_at=r.created_at, current=r.digest == current)
             for r in rows]
    return [*found, Revision(name=UPLOADED, sidecar=None)]


def revision_of(project: DatasetProject, task: DatasetTask, name: str | None = None) -> Revision:
    """The revision *name* (a digest, or its first 8+ characters; :data:`UPLOADED`), by default the newest
    stored one (the upload when none is stored). An unknown name is a 404."""
    if name == UPLOADED:
        return Revision(name=UPLOADED, sidecar=None)
    rows = SidecarResult.objects.filter(task=task).order_by("-created_at", "-id")
    if name:
        if len(name) < 8:
            raise NotFound(f"no sidecar revision {name!r} of task {task.name!r}")
        rows = rows.filter(digest__startswith=name)
    row = rows.only("digest", "sidecar", "created_at").first()
    if row is None:
        if name:
            raise NotFound(f"no sidecar revision {name!r} of task {task.name!r} (the newest few are kept)")
        return Revision(name=UPLOADED, sidecar=None)
    return Revision(name=row.digest, sidecar=row.sidecar, created_at=row.created_at)


def _sidecar_files(project: DatasetProject) -> DatasetFiles:
    """The project's ``*_events.json`` files only (small; the events texts are read when asked for)."""
    return DatasetFiles(texts=dict(project.files.filter(path__endswith=EVENTS_JSON_SUFFIX).values_list("path",
                                                                                                        "text")))


def _sidecars(project: DatasetProject, task: DatasetTask, revision: Revision) -> dict[str, Any]:
    files = _sidecar_files(project)
    found: dict[str, Any] = {}
    for path in files.sidecar_files():
        try:
            found[path] = files.json(path)
        except ValueError:  # refused at upload; nothing to read
            continue
    if revision.sidecar is not None:
        written = {task.sidecar_name: revision.sidecar}
        found.update(lower_sidecars(files, written, {task.sidecar_name: list(task.events_files)}))
        found.update(written)
    return found


def task_events(project: DatasetProject, task: DatasetTask, revision: Revision) -> TaskEvents:
    """*task*'s events files read with *revision*: by reference, their texts read when a search process asks."""
    version = validation_version(project)
    sidecars = _sidecars(project, task, revision)
    paths = list(task.events_files)
    effective = {path: effective_sidecar(sidecars, path) for path in paths}
    refs = [EventsSource(path=path, key=source_key(version, effective[path], f"{project.pk}:{path}"),
                         sidecar=None) for path in paths]

    def complete(keys: Iterable[str]) -> Mapping[str, EventsSource]:
        wanted = {r.key: r.path for r in refs if r.key in set(keys)}
        texts = dict(project.files.filter(path__in=list(wanted.values())).values_list("path", "text"))
        return {key: EventsSource(path=path, key=key, text=texts.get(path, ""), sidecar=effective[path])
                for key, path in wanted.items()}

    return TaskEvents(task=task.name, version=version, sources=refs, complete=complete,
                      revision=digest("project-task", str(project.pk), task.name, revision.name,
                                      json.dumps(version)))


__all__ = ["TASK_FIELDS", "UPLOADED", "Revision", "project_tasks", "revision_of", "task_events", "task_revisions"]
