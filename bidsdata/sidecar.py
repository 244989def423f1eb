"""Build a task's ``events.json`` from its inventory and chosen HED, validate it, and export it.

The sidecar starts from the uploaded one, so every key we do not handle (``Units``, ``LongName``,
definition entries...) stays where it was. Categorical columns get ``Description``, ``Levels`` (every
level, none dropped) and ``HED``; value columns their ``#`` template. A level or value column left
without HED is reported in :attr:`SidecarBuild.missing`, never silently omitted.
"""

from __future__ import annotations

import copy
import io
import json
import logging
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from hed.errors import ErrorContext
from hed.models import Sidecar
from hed.tools.analysis.annotation_util import hed_to_df

from bidsdata import cells, delays
from bidsdata.archive import DatasetFiles
from bidsdata.inheritance import lower_sidecars
from bidsdata.inventory import ColumnInventory, TaskInventory, entities
from bidsdata.issues import SIDECAR, SidecarIssue, severity, text_or_none
from bidsdata.members import EVENTS_JSON_SUFFIX, check_member_name, is_symlink
from bidsdata.schemas import load_schema
from bidsdata.types import LevelAnnotations
from bidsdata.validation import ResultCache, validate_events

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MissingAnnotation:
    """A categorical level (or, with ``level=None``, a value column) that has no HED in the sidecar."""

    column: str
    level: str | None


@dataclass
class SidecarBuild:
    """A built sidecar and what it lacks."""

    sidecar: dict[str, Any]
    missing: list[MissingAnnotation] = field(default_factory=list)


def build_sidecar(task: TaskInventory, annotations: LevelAnnotations, *,
                  keep_existing_hed: bool = True) -> SidecarBuild:
    """The ``events.json`` dict for *task* with *annotations* applied.

    Column ``Description`` and level texts in ``Levels`` are the inventory's (they start as the uploaded
    sidecar's and hold the user's edits since). A level's HED comes from *annotations*, else (with
    *keep_existing_hed*) from the uploaded sidecar;
    a level with neither is listed in ``missing``. Definitions and all other keys of the uploaded sidecar
    stay where they were (*keep_existing_hed* concerns only the inventoried columns; build the inventory
    with ``ignore_existing_hed`` to drop definitions too).

    Raises:
        ValueError: *annotations* names a column the task does not have, or gives a categorical column
            a string or a value column a dict.
    """
    _check_annotations(task, annotations)
    sidecar = copy.deepcopy(task.original_sidecar)
    missing: list[MissingAnnotation] = []
    for column in task.columns:
        if column.kind == "skip":
            continue
        entry = _described_entry(sidecar, column)
        given = annotations.get(column.name)
        if column.kind == "value":
            missing += _value_hed(entry, column, given, keep_existing_hed)
        else:
            missing += _levels_hed(entry, column, given, keep_existing_hed)
    if missing:
        logger.info("sidecar %s lacks HED for %d level(s)/column(s)", task.sidecar_name, len(missing))
    return SidecarBuild(sidecar=sidecar, missing=missing)


def _check_annotations(task: TaskInventory, annotations: LevelAnnotations) -> None:
    """Refuse annotations for a column the task lacks, or of the wrong shape for its kind."""
    known = {c.name: c for c in task.columns}
    for name, given in annotations.items():
        column = known.get(name)
        if column is None or column.kind == "skip":
            raise ValueError(f"task {task.task} has no annotatable column {name!r}")
        if (column.kind == "categorical") != isinstance(given, Mapping):
            raise ValueError(f"column {name!r} is {column.kind}: give it "
                             f"{'a mapping level -> HED' if column.kind == 'categorical' else 'one # template'}")


def _described_entry(sidecar: dict[str, Any], column: ColumnInventory) -> dict[str, Any]:
    """*column*'s sidecar entry with the stored ``Description`` (the user may have edited it) and ``Units``."""
    entry = sidecar.setdefault(column.name, {})
    if column.description or "Description" not in entry:
        entry["Description"] = column.description
    if column.units and "Units" not in entry:
        entry["Units"] = column.units
    return entry


def _value_hed(entry: dict[str, Any], column: ColumnInventory, given: object,
               keep_existing_hed: bool) -> list[MissingAnnotation]:
    """A value column's ``#`` template: the given one, else (kept) the uploaded one; none is missing."""
    template = given if isinstance(given, str) and given.strip() else None
    if template is None and keep_existing_hed and isinstance(entry.get("HED"), str):
        template = entry["HED"]
    if template:
        entry["HED"] = template
        return []
    entry.pop("HED", None)
    return [MissingAnnotation(column.name, None)]


def _levels_hed(entry: dict[str, Any], column: ColumnInventory, given: object,
                keep_existing_hed: bool) -> list[MissingAnnotation]:
    """A categorical column's ``Levels`` (every level, none dropped) and ``HED``; levels without HED missing."""
    chosen: Mapping[str, str] = given if isinstance(given, Mapping) else {}
    old_hed = entry.get("HED") if keep_existing_hed and isinstance(entry.get("HED"), dict) else {}
    # Levels in another shape (a list of names, BIDS allows no such thing but labs write it) become the object.
    levels = dict(entry["Levels"]) if isinstance(entry.get("Levels"), dict) else {}
    hed: dict[str, str] = {}
    missing: list[MissingAnnotation] = []
    for level in column.levels:
        # The stored description wins over the uploaded Levels text: it is that text unless the user edited it.
        levels[level.value] = level.description or levels.get(level.value) or level.value
        text = (chosen.get(level.value) or "").strip() or str(old_hed.get(level.value) or "").strip()
        if text:
            hed[level.value] = text
        else:
            missing.append(MissingAnnotation(column.name, level.value))
    for value, text in chosen.items():  # HED for a level the data never showed: keep it, and list it
        if value not in hed and text.strip():
            hed[value] = text.strip()
            levels.setdefault(value, value)
    entry["Levels"] = levels
    if hed:
        entry["HED"] = hed
    else:
        entry.pop("HED", None)
    return missing


def validate_sidecar(
    sidecar: dict[str, Any],
    events: Mapping[str, str],
    hed_version: str | list[str] | None,
    *,
    name: str = "events.json",
    include_warnings: bool = False,
    cache: ResultCache | None = None,
    workers: int | None = None,
) -> list[SidecarIssue]:
    """Validate *sidecar* alone, then each events file (path -> TSV text) with it.

    Events files are validated only when the sidecar itself has no errors (hedtools cannot assemble
    rows from a broken sidecar), in parallel processes and in path order (:func:`.validation.validate_events`:
    *workers* overrides the number of processes; a *cache* keeps each file's issues for the next call with
    the same sidecar). Issues carry the sidecar column/level, or the file, row, column and that row's value,
    as hedtools reports them.
    """
    delays.install()  # hedtools' own Delay split grows a frame row by row: quadratic in the delayed rows
    schema = load_schema(hed_version)
    side = Sidecar(io.StringIO(json.dumps(sidecar)), name=name)
    found: list[SidecarIssue] = []
    for issue in side.validate(schema, name=""):
        if severity(issue) == "error" or include_warnings:
            column = issue.get(ErrorContext.SIDECAR_COLUMN_NAME)
            level = issue.get(ErrorContext.SIDECAR_KEY_NAME)
            hed = sidecar.get(column, {}).get("HED") if isinstance(sidecar.get(column), dict) else None
            if level is None and isinstance(hed, dict) and len(hed) == 1:
                level = next(iter(hed))  # hedtools names the key only when a column has several
            found.append(SidecarIssue(
                source=SIDECAR, code=str(issue.get("code")), message=str(issue.get("message", "")).strip(),
                severity=severity(issue), column=column, level=level,
                hed=text_or_none(issue.get(ErrorContext.HED_STRING))))
    if any(i.severity == "error" for i in found) or not events:
        return found
    return found + validate_events(sidecar, events, hed_version, name=name, include_warnings=include_warnings,
                                   cache=cache, workers=workers)


def validate_task(files: DatasetFiles, task: TaskInventory, sidecar: dict[str, Any],
                  hed_version: str | list[str] | None) -> list[SidecarIssue]:
    """:func:`validate_sidecar` with every events file of *task*."""
    events = {path: files.texts[path] for path in task.events_files}
    return validate_sidecar(sidecar, events, hed_version, name=task.sidecar_name)


def sidecar_to_spreadsheet(sidecar: dict[str, Any]) -> str:
    """The HED of a sidecar as hedtools' 4-column TSV (column_name, column_value, description, HED), every
    cell made inert for spreadsheet programs (:mod:`bidsdata.cells`)."""
    frame = hed_to_df(sidecar)
    return cells.table_text([list(frame.columns), *frame.itertuples(index=False, name=None)])


def _replaced(path: str, tasks: set[str]) -> bool:
    """Root sidecars of the tasks we write are replaced; deeper ones stay (BIDS inheritance)."""
    return "/" not in path and path.endswith(EVENTS_JSON_SUFFIX) and entities(path).get("task") in tasks


def write_dataset_zip(out: IO[bytes], sidecars: Mapping[str, dict[str, Any]], *,
                      files: DatasetFiles | None = None, source_zip: str | IO[bytes] | None = None,
                      source_prefix: str = "") -> None:
    """Write a zip with *sidecars* (root file name -> dict) in place of the old ones.

    The other files come from *files* (what the reader keeps: events files, sidecars and
    ``dataset_description.json``, never recordings or the README; so this is the dataset's HED files, not the
    whole dataset) and/or are streamed entry by entry from the original *source_zip* (everything, recordings
    included; *source_prefix* is its top folder to strip, if any), so memory stays bounded by one copy
    buffer. Root sidecars of the same tasks are replaced; with *files*, a sidecar below the root (or beside it,
    with more entities) that redefines a column of one written is written with that column's HED, so the HED
    takes effect in every events file (BIDS inheritance: the deeper sidecar's key wins).
    """
    tasks = {entities(name).get("task") for name in sidecars} - {None}
    if files is not None:  # lower sidecars that redefine a column get its HED too (bidsdata.inheritance)
        sidecars = {**lower_sidecars(files, sidecars), **sidecars}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        if files is not None:
            for path in files.paths():
                if path not in sidecars and not _replaced(path, tasks):
                    target.writestr(path, files.texts[path])
        if source_zip is not None:
            written: set[str] = set()
            with zipfile.ZipFile(source_zip) as source:
                for info in source.infolist():
                    member = check_member_name(info.filename)
                    if info.is_dir() or is_symlink(info) or not member.startswith(source_prefix):
                        continue
                    path = member[len(source_prefix):].lstrip("/")
                    if (not path or path in sidecars or _replaced(path, tasks) or (files and path in files.texts)
                            or path.casefold() in written):
                        continue  # one entry per normalised name, letter case aside: never a file twice
                    written.add(path.casefold())
                    with source.open(info) as reader, target.open(path, "w", force_zip64=True) as writer:
                        while chunk := reader.read(1024 * 1024):
                            writer.write(chunk)
        for name, sidecar in sidecars.items():
            target.writestr(name, json.dumps(sidecar, indent=2, ensure_ascii=False) + "\n")
    logger.info("dataset zip written with %d sidecar(s)", len(sidecars))
