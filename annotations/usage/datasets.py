"""What a command's DATASET names: a BIDS folder, a zip of one, or a dataset project's id, as tasks to ask.

A folder or zip is read with the upload's checks and limits (:mod:`bidsdata.archive`, the
``HEDIT_UPLOAD_MAX_*`` settings) and searched with its own sidecars under BIDS inheritance; a project with
its current sidecars (:mod:`.revisions`). Every refusal is a :class:`DatasetUnusable` with one line.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from agents.schema import HedVersion
from annotations.datasets.uploads import upload_limits
from annotations.models import DatasetProject
from annotations.usage.revisions import project_tasks, revision_of, task_events
from bidsdata.archive import DatasetError, read_folder, read_zip
from bidsdata.usage import TaskEvents
from bidsdata.usage.sources import dataset_version, task_sources, tasks_of


class DatasetUnusable(Exception):
    """DATASET cannot be read, or has no such task."""


@dataclass
class Dataset:
    """A dataset's schema and its tasks (each with its events files and the sidecars they read)."""

    name: str
    version: HedVersion | None
    tasks: list[TaskEvents]


def _chosen(names: list[str], task: str | None) -> list[str]:
    if task is None:
        return names
    if task not in names:
        raise DatasetUnusable(f"no task {task!r}; this dataset has: {', '.join(names) or 'none'}")
    return [task]


def _project(text: str) -> DatasetProject | None:
    try:
        pk = uuid.UUID(text)
    except ValueError:
        return None
    return DatasetProject.objects.filter(pk=pk).first()


def open_dataset(dataset: str, task: str | None = None) -> Dataset:
    """*dataset* (a folder, a zip, or a project id) with its tasks (only *task* when given)."""
    path = Path(dataset)
    try:
        if path.is_dir():
            files = read_folder(path, limits=upload_limits())
        elif path.is_file() and path.suffix.lower() == ".zip":
            files = read_zip(str(path), name=path.name, limits=upload_limits())
        else:
            project = _project(dataset)
            if project is None:
                raise DatasetUnusable(f"{dataset}: not a BIDS folder, a zip of one, or a dataset project's id")
            tasks = {t.name: t for t in project_tasks(project)}
            chosen = _chosen(sorted(tasks), task)
            events = [task_events(project, tasks[name], revision_of(project, tasks[name])) for name in chosen]
            return Dataset(name=project.name, version=events[0].version if events else project.schema_version,
                           tasks=events)
        version = dataset_version(files)
        by_task = tasks_of(files)
    except (DatasetError, OSError) as exc:
        raise DatasetUnusable(str(exc)) from None
    chosen = _chosen(list(by_task), task)
    return Dataset(name=path.name, version=version,
                   tasks=[TaskEvents(name, version, task_sources(files, by_task[name], version)) for name in chosen])


__all__ = ["Dataset", "DatasetUnusable", "open_dataset"]
