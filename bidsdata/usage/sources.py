"""What a search reads: a task's events files, each with the sidecar it gets under BIDS inheritance.

An :class:`EventsSource` is one events file with its effective sidecar (every ``*_events.json`` that applies to
it, the deepest key winning: :func:`bidsdata.inheritance.effective_sidecar`) and a ``key``: the digest of the
schema version, that sidecar and the file's text. The same key, the same assembled HED, so a search keeps
hedtools' assembly by key and every later query of the same revision reuses it.

A source may travel without its text (:meth:`EventsSource.ref`): a search process that already holds the
assembly of that key needs nothing more, and asks for the text only when it does not (:class:`NeedTexts`).

Pure: no Django.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from agents.schema import HedVersion
from bidsdata.archive import DatasetError, DatasetFiles
from bidsdata.inheritance import effective_sidecar
from bidsdata.inventory import entities
from bidsdata.versions import read_hed_version


def digest(*parts: Any) -> str:
    """One digest of plain data (JSON with sorted keys): what a cached answer is kept under."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class EventsSource:
    """One events file of a task, the sidecar that applies to it, and the key of the two with the schema."""

    path: str
    key: str
    text: str | None = None
    sidecar: Mapping[str, Any] | None = None

    def ref(self) -> EventsSource:
        """This source without its text and sidecar: what travels when the assembly is likely held already."""
        return replace(self, text=None, sidecar=None)

    @property
    def complete(self) -> bool:
        return self.text is not None and self.sidecar is not None


def source_key(version: HedVersion | None, sidecar: Mapping[str, Any], text_digest: str) -> str:
    """The key of an events file's assembly: the schema, the sidecar it reads and (the digest of) its text."""
    return digest("events-source", version, sidecar, text_digest)


def make_source(path: str, text: str, sidecar: Mapping[str, Any], version: HedVersion | None,
                text_digest: str | None = None) -> EventsSource:
    """An events file as a search reads it; *text_digest* names the text when the caller already knows it
    (a stored file that never changes), else it is computed."""
    named = text_digest or hashlib.sha256(text.encode("utf-8")).hexdigest()
    return EventsSource(path=path, key=source_key(version, sidecar, named), text=text, sidecar=dict(sidecar))


class NeedTexts(Exception):
    """A search process lacks the assembly of these keys and was sent no text for them."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = sorted(set(keys))
        super().__init__(f"{len(self.keys)} events file(s) to send")

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a search process, read in the asking one
        return (NeedTexts, (self.keys,))


def sidecars_of(files: DatasetFiles) -> dict[str, Any]:
    """Every ``*_events.json`` of *files*, parsed (path -> content)."""
    return {path: files.json(path) for path in files.sidecar_files()}


def tasks_of(files: DatasetFiles) -> dict[str, list[str]]:
    """The dataset's tasks, each with its events files (sorted); a file without a ``task-`` entity is refused."""
    by_task: dict[str, list[str]] = {}
    for path in files.events_files():
        task = entities(path).get("task")
        if not task:
            raise DatasetError("events file has no task entity (task-<label>) in its name", path=path)
        by_task.setdefault(task, []).append(path)
    if not by_task:
        raise DatasetError("no *_events.tsv files found")
    return dict(sorted(by_task.items()))


def task_sources(files: DatasetFiles, paths: Iterable[str], version: HedVersion | None,
                 sidecars: Mapping[str, Any] | None = None) -> list[EventsSource]:
    """The events files *paths* of *files*, each with the sidecar BIDS inheritance gives it (the dataset's own
    ``*_events.json``, or *sidecars* in their place)."""
    found = sidecars_of(files) if sidecars is None else sidecars
    return [make_source(path, files.texts[path], effective_sidecar(found, path), version) for path in paths]


def dataset_version(files: DatasetFiles, default: HedVersion | None = None) -> HedVersion | None:
    """The schema a dataset declares (``HEDVersion``), or *default*."""
    return read_hed_version(files) or default


__all__ = ["EventsSource", "NeedTexts", "dataset_version", "digest", "make_source", "sidecars_of",
           "source_key", "task_sources", "tasks_of"]
