"""A small task built in memory: an events file, its inventory, and hedtools' verdicts on a sidecar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bidsdata.archive import read_uploads
from bidsdata.composition import compose_task
from bidsdata.inventory import TaskInventory, build_inventory
from bidsdata.sidecar import build_sidecar

pytest.importorskip("hed")
VERSION = "8.4.0"


def task_of(events: str, sidecar: dict[str, Any] | None = None, name: str = "demo") -> TaskInventory:
    uploads = [(f"sub-01_task-{name}_events.tsv", events.encode())]
    if sidecar is not None:
        uploads.append((f"task-{name}_events.json", json.dumps(sidecar).encode()))
    return build_inventory(read_uploads(uploads)).tasks[0]


def composed_sidecar(task: TaskInventory, annotations: dict[str, Any], events: str) -> tuple[dict[str, Any], Any]:
    composition = compose_task(task, annotations, {"sub-01_events.tsv": events}, VERSION)
    built = build_sidecar(task, composition.annotations, keep_existing_hed=False)
    return composition.apply(built.sidecar), composition


def verdicts(sidecar: dict[str, Any], events: str, tmp: Path) -> tuple[list[dict], list[dict], list[str]]:
    """hedtools' validation errors, EventsChecker issues, and each row's assembled HED."""
    from hed.errors import ErrorSeverity
    from hed.models import Sidecar, TabularInput
    from hed.schema import load_schema_version
    from hed.tools.analysis.event_checker import EventsChecker

    schema = load_schema_version(VERSION)
    (tmp / "s.json").write_text(json.dumps(sidecar))
    (tmp / "e.tsv").write_text(events)
    side = Sidecar(str(tmp / "s.json"))
    errors = [i for i in side.validate(schema) + TabularInput(str(tmp / "e.tsv"), sidecar=side).validate(schema)
              if i.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR]
    checks = EventsChecker(schema, TabularInput(str(tmp / "e.tsv"), sidecar=side), "e.tsv").validate_event_tags()
    rows = [str(s) for s in TabularInput(str(tmp / "e.tsv"), sidecar=side).series_a]
    return errors, checks, rows
