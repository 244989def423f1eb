"""What a BIDS dataset holds for HED: its schema version (:mod:`.versions`), its tasks, and per task every
events column (level keys written otherwise than the events files write them: :mod:`.level_keys`).

Columns are classified from the one-pass scans of a task's events files (:mod:`.tsv`: value counts per
column, bounded): ``skip`` (onset, duration, sample, HED, and bookkeeping: sample positions and trial or
event counters), ``categorical`` (with its levels and their counts: text with few values, or whole-number
codes with few values) or ``value`` (magnitudes, other numbers, or too many distinct values to annotate one
by one); the scan counts while it checks the file (hedtools' ``TabularSummary`` holds every file as a pandas
frame at once, several times the memory of the text). An existing
sidecar has the last word on the kind: ``Levels`` or a ``HED`` dict make a column categorical, a ``HED``
string a value column. Descriptions come from that sidecar, else are generated from the names (and
flagged ``needs_description``).

Each task also carries its :class:`TaskContext` (the dataset's README and the task file's ``TaskName``,
``TaskDescription`` and ``Instructions``) for the annotator, and notes on events files whose rows are not
placed in time (``onset`` n/a).
"""

from __future__ import annotations

import copy
import logging
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from bidsdata.archive import DatasetError, DatasetFiles
from bidsdata.columns import MAX_LEVELS as MAX_LEVELS
from bidsdata.columns import (
    MIN_COUNTER_VALUES,
    ColumnKind,
    detected_kind,
    is_marker_levels,
    made_up_description,
    numbers_trials,
)
from bidsdata.columns import humanize as humanize
from bidsdata.context import TaskContext, task_context
from bidsdata.entities import entities as entities
from bidsdata.entities import repeats_file_entity
from bidsdata.level_keys import written_as
from bidsdata.limits import (
    MAX_NAME_CHARS,
    MAX_TASK_CHARS,
    MAX_UNITS_CHARS,
    LimitExceeded,
    UploadLimits,
    check_length,
)
from bidsdata.markers import marker_description
from bidsdata.members import EVENTS_JSON_SUFFIX
from bidsdata.numbers import is_number as is_number
from bidsdata.shapes import check_sidecar, declared_levels, set_aside
from bidsdata.tsv import NA_VALUES, SKIP_COLUMNS, TableScan
from bidsdata.versions import read_hed_version

logger = logging.getLogger(__name__)

_DEFINITION = re.compile(r"\bDefinition/", re.IGNORECASE)


@dataclass
class LevelInventory:
    """One level of a categorical column."""

    value: str
    count: int
    description: str
    needs_description: bool = False
    existing_hed: str | None = None


@dataclass
class ColumnInventory:
    """One events column of a task.

    ``existing_hed`` is the uploaded sidecar's HED: ``dict`` level -> HED for a categorical column, one
    string with ``#`` for a value column, ``None`` when there was none (or it was ignored).
    """

    name: str
    kind: ColumnKind
    description: str
    levels: list[LevelInventory] = field(default_factory=list)
    units: str | None = None
    existing_hed: dict[str, str] | str | None = None
    needs_description: bool = False
    distinct_values: int = 0
    samples: list[str] = field(default_factory=list)
    long_name: str | None = None
    """The sidecar's ``LongName`` of the column, if any."""

    def level(self, value: str) -> LevelInventory | None:
        return next((lv for lv in self.levels if lv.value == value), None)


@dataclass
class EventsFileNote:
    """Something about one events file the user should know (in plain words), though it is not refused."""

    path: str
    message: str
    code: str = "EVENTS_NOT_TIMED"  # the kind: rows without onsets, EVENTS_REPEATED, SIDECAR_KEY_SET_ASIDE


@dataclass
class TaskInventory:
    """A task: the sidecar to write, its events files, its columns, and the uploaded sidecar as read.

    ``original_sidecar`` is the uploaded sidecar (root one, else the first deeper one) with every key kept
    (``Units``, ``LongName``, definition entries...), minus its HED when existing HED is ignored.
    ``definition_keys`` names the sidecar entries holding ``Definition/`` HED.
    """

    task: str
    sidecar_name: str
    events_files: list[str]
    columns: list[ColumnInventory]
    original_sidecar: dict[str, Any] = field(default_factory=dict)
    definition_keys: list[str] = field(default_factory=list)
    context: TaskContext = field(default_factory=TaskContext)
    notes: list[EventsFileNote] = field(default_factory=list)

    def column(self, name: str) -> ColumnInventory | None:
        return next((c for c in self.columns if c.name == name), None)

    def legend(self) -> dict[str, str]:
        """Things the lab's sidecar names and describes under an entry that is no column of the events files (a
        ``Levels`` object of names, such as an entry gathering the task's definitions): name -> description.

        Curators keep such entries for the things a task's codes refer to; their words say what a code's
        ``Levels`` description only names ("the start of the left perturbation")."""
        columns = {c.name for c in self.columns} | {"onset", "duration"}
        found: dict[str, str] = {}
        for key, entry in self.original_sidecar.items():
            levels = entry.get("Levels") if isinstance(entry, dict) and key not in columns else None
            if isinstance(levels, dict):
                found.update({str(name): text.strip() for name, text in levels.items()
                              if isinstance(text, str) and text.strip()})
        return found


@dataclass
class Inventory:
    """A dataset's HED version (``None``: none declared, use the default) and its tasks, sorted by name."""

    hed_version: str | list[str] | None
    tasks: list[TaskInventory]

    def task(self, name: str) -> TaskInventory | None:
        return next((t for t in self.tasks if t.task == name), None)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Inventory:
        tasks = []
        for t in data["tasks"]:
            columns = [ColumnInventory(**{**c, "levels": [LevelInventory(**lv) for lv in c["levels"]]})
                       for c in t["columns"]]
            tasks.append(TaskInventory(**{**t, "columns": columns, "context": TaskContext.from_dict(t.get("context")),
                                          "notes": [EventsFileNote(**n) for n in t.get("notes", [])]}))
        return cls(hed_version=data["hed_version"], tasks=tasks)


def _strip_hed(sidecar: dict[str, Any]) -> dict[str, Any]:
    """The sidecar without any HED (definitions included): ignoring existing HED starts from nothing."""
    stripped: dict[str, Any] = {}
    for key, entry in sidecar.items():
        if isinstance(entry, dict):
            entry = {k: v for k, v in entry.items() if k != "HED"}
            if not entry:
                continue
        stripped[key] = entry
    return stripped


def _task_sidecar(files: DatasetFiles, task: str, *,
                  hed: bool = True) -> tuple[str, dict[str, Any], list[EventsFileNote]]:
    """The sidecar name and content for a task, following BIDS inheritance, and what was set aside of it.

    A root-level sidecar names the output (with its entities, e.g. ``task-X_acq-Y_events.json``); the
    plainest one wins when there are several. Without one, deeper sidecars lend their content and the
    output is ``task-<label>_events.json`` at the root.
    """
    candidates = [p for p in files.sidecar_files() if entities(p).get("task") == task]
    # A file at the top carrying sub-/ses- is a single uploaded subject file, not a dataset-level sidecar.
    root = sorted((p for p in candidates if "/" not in p and not {"sub", "ses"} & set(entities(p))),
                  key=lambda p: (len(entities(p)), p))
    if root:
        chosen, name = root[0], root[0]
        if len(root) > 1:
            logger.warning("task %s has several root sidecars %s; using %s", task, root, chosen)
    else:
        chosen, name = (candidates[0] if candidates else None), f"task-{task}{EVENTS_JSON_SUFFIX}"
    for other in candidates:  # every sidecar the task's events files read (BIDS inheritance) must be readable
        if other != chosen:
            check_sidecar(files.json(other), other, hed=hed)
    if not chosen:
        return name, {}, []
    content, aside = set_aside(files.json(chosen))
    content = check_sidecar(content, chosen, hed=hed)
    return name, content, [EventsFileNote(chosen, note, code="SIDECAR_KEY_SET_ASIDE") for note in aside]


def _declared_levels(name: str, entry: dict[str, Any], hed: object, limits: UploadLimits, path: str | None) -> int:
    declared = len(declared_levels(entry))
    declared = max(declared, len(hed) if isinstance(hed, dict) else 0)
    if declared > limits.max_levels_per_column:
        raise LimitExceeded(f"column {name!r} declares {declared:,} levels", "max_levels_per_column",
                            limits.max_levels_per_column, path=path)
    return declared


def _column(name: str, counted: Counter[str], overflow: bool, samples: list[str], entry: dict[str, Any],
            use_hed: bool, *, counter: bool = False) -> ColumnInventory:
    counts = {str(v): int(c) for v, c in counted.items() if str(v) not in NA_VALUES}
    sidecar_levels = declared_levels(entry)
    hed = entry.get("HED") if use_hed else None
    description = entry.get("Description") if isinstance(entry.get("Description"), str) else None
    units = entry.get("Units") if isinstance(entry.get("Units"), str) else None
    long_name = entry.get("LongName")
    column = ColumnInventory(name=name, kind="value", description=str(description or humanize(name)),
                             needs_description=not description, units=str(units) if units else None,
                             distinct_values=len(counts), samples=samples,
                             long_name=str(long_name) if isinstance(long_name, str | int | float) and long_name
                             else None)
    if name in SKIP_COLUMNS:
        column.kind, column.needs_description, column.samples = "skip", False, []
        return column
    if sidecar_levels or isinstance(hed, dict):
        kind: ColumnKind = "categorical"
    elif isinstance(entry.get("HED"), str):
        kind = "value"
    else:
        kind = detected_kind(name, list(counts), overflow=overflow, counter=counter, counts=counts)
    if kind == "skip":
        column.kind, column.needs_description, column.samples = "skip", False, []
    elif kind == "value":
        column.existing_hed = hed if isinstance(hed, str) else None
        # A trial number's name says all there is to say (Experimental-trial/#): nothing to ask the lab.
        column.needs_description = column.needs_description and not numbers_trials(name, list(counts))
    else:
        keys = written_as(sidecar_levels, counts)
        _add_levels(column, counts, {keys.get(k, k): v for k, v in sidecar_levels.items()},
                    {keys.get(str(k), str(k)): v for k, v in hed.items()} if isinstance(hed, dict) else hed)
        for part in ("Levels", "HED"):  # the sidecar the job writes keys them as the events files do
            if keys and isinstance(entry.get(part), dict):
                entry[part] = {keys.get(str(k), str(k)): v for k, v in entry[part].items()}
    return column


def _add_levels(column: ColumnInventory, counts: dict[str, int], sidecar_levels: Mapping[str, Any],
                hed: object) -> None:
    """A categorical column's levels: declared ones first (in the sidecar's order, even if unused), then those
    only found in the data, each with its description (the lab's, or one made up from the names)."""
    column.kind = "categorical"
    hed_levels = {str(k): str(v) for k, v in hed.items()} if isinstance(hed, dict) else {}
    column.existing_hed = hed_levels or None
    values = [str(v) for v in sidecar_levels] + [v for v in counts if v not in sidecar_levels]
    values += [v for v in hed_levels if v not in values]
    # A marker string is read as words ("Trial start, number 9"), not as "value: trial start: no.9".
    markers = not sidecar_levels and not hed_levels and is_marker_levels(counts)
    for value in values:
        text = sidecar_levels.get(value)
        made_up = marker_description(value) if markers else made_up_description(column.name, value)
        column.levels.append(LevelInventory(
            value=value, count=counts.get(value, 0), description=str(text) if text else made_up,
            needs_description=not text, existing_hed=hed_levels.get(value)))


def _task_inventory(files: DatasetFiles, task: str, paths: list[str], ignore_existing_hed: bool,
                    limits: UploadLimits) -> TaskInventory:
    sidecar_name, original, notes = _task_sidecar(files, task, hed=not ignore_existing_hed)
    definition_keys = [key for key, entry in original.items()
                       if isinstance(entry, dict) and _DEFINITION.search(str(entry.get("HED", "")))]
    for key, entry in original.items():  # refused before any level is built, whatever the events hold
        if isinstance(entry, dict):
            _declared_levels(str(key), entry, entry.get("HED"), limits, sidecar_name)
    if ignore_existing_hed:
        original, definition_keys = _strip_hed(original), []
    names: list[str] = []
    counts: dict[str, Counter[str]] = {}
    overflow: dict[str, bool] = {}
    samples: dict[str, list[str]] = {}
    counter: dict[str, tuple[bool, int]] = {}  # counts up by one in every file; the longest such run
    file_named: dict[str, bool] = {}  # in every file one value, that file's run (or session) number
    file_values: dict[str, set[str]] = {}  # those values, which must differ between files to tell anything
    for path in paths:
        scan = files.scan(path, limits)
        notes += [note for note in (_untimed_note(path, scan), _repeated_note(path, scan)) if note is not None]
        for name in scan.header:
            if name not in names:
                names.append(name)
                counts[name], overflow[name], samples[name], counter[name] = Counter(), False, [], (True, 0)
                file_named[name], file_values[name] = True, set()
            found = scan.columns.get(name)
            if found is None:
                continue
            counts[name].update(found.counts)
            overflow[name] = overflow[name] or found.overflow or len(counts[name]) > limits.max_distinct_values
            samples[name] += [v for v in scan.samples(name) if v not in samples[name]][:50 - len(samples[name])]
            counter[name] = (counter[name][0] and found.counter, max(counter[name][1], found.counted))
            file_named[name] = file_named[name] and repeats_file_entity(found.counts, entities(path))
            file_values[name].update(found.counts)
    columns = []
    total_levels = 0
    for name in names:
        entry = original.get(name) if isinstance(original.get(name), dict) else {}
        counts_up = counter[name][0] and counter[name][1] >= MIN_COUNTER_VALUES
        column = _column(name, counts[name], overflow[name], samples[name], entry, use_hed=not ignore_existing_hed,
                         counter=counts_up or (file_named[name] and len(file_values[name]) > 1))
        total_levels += len(column.levels)
        if total_levels > limits.max_levels_per_task:
            raise LimitExceeded(f"task {task} has over {limits.max_levels_per_task:,} levels", "max_levels_per_task",
                                limits.max_levels_per_task, path=sidecar_name)
        columns.append(column)
    _check_names(task, sidecar_name, columns, paths[0])
    return TaskInventory(task=task, sidecar_name=sidecar_name, events_files=paths, columns=columns,
                         original_sidecar=copy.deepcopy(original), definition_keys=definition_keys,
                         context=_task_context(files, task), notes=notes)


def _check_names(task: str, sidecar_name: str, columns: list[ColumnInventory], events_file: str) -> None:
    """Every name of a task that is stored, within its stored length (:mod:`.limits`), before any is stored."""
    check_length("task label", task, MAX_TASK_CHARS, path=events_file)
    check_length("sidecar file name", sidecar_name, MAX_NAME_CHARS, path=events_file)
    for column in columns:
        check_length("column name", column.name, MAX_NAME_CHARS, path=events_file)
        check_length(f"Units of column {column.name!r}", column.units or "", MAX_UNITS_CHARS, path=sidecar_name)
        for level in column.levels:
            check_length(f"level of column {column.name!r}", level.value, MAX_NAME_CHARS, path=events_file)


def _untimed_note(path: str, scan: TableScan) -> EventsFileNote | None:
    """A note on an events file whose rows (some or all) have no onset: they are not placed in time."""
    if not scan.untimed_rows:
        return None
    which = "every row" if scan.untimed_rows == scan.rows else f"{scan.untimed_rows:,} of its {scan.rows:,} rows"
    return EventsFileNote(path, f"the onset column is n/a on {which}, so those rows are not events placed in time "
                                "(BIDS events files give each event's onset in seconds); their levels are "
                                "annotated all the same, and each such row is taken as an event of its own")


def _repeated_note(path: str, scan: TableScan) -> EventsFileNote | None:
    """A note on an events file that writes one event twice: hedtools refuses those events whatever the HED."""
    if not scan.repeated_rows:
        return None
    return EventsFileNote(path, f"{scan.repeated_rows:,} row(s) repeat another row of their event in every column "
                                f"(the first at onset {scan.first_repeat}): hedtools refuses an event that says "
                                "the same thing twice, whatever the sidecar, so those events fail validation "
                                "(where such rows are few, their levels are annotated all the same). Remove the "
                                "repeated rows to fix it",
                          code="EVENTS_REPEATED")


def _task_context(files: DatasetFiles, task: str) -> TaskContext:
    """What the dataset's README and its root task files (``task-<label>_bold.json``...) say of *task*."""
    task_files = [files.json_context(path) for path in files.task_files() if entities(path).get("task") == task]
    return task_context(files.readme(), task_files)


def build_inventory(files: DatasetFiles, *, ignore_existing_hed: bool = False,
                    limits: UploadLimits | None = None) -> Inventory:
    """Inventory a dataset read by :mod:`.archive`.

    With ``ignore_existing_hed`` every HED of the uploaded sidecars is dropped, definitions included,
    so annotation starts from nothing (descriptions, ``Levels``, ``Units`` and other keys stay).

    Raises:
        DatasetError: no events files, an events file without a ``task-`` entity, an unsupported
            HEDVersion, or a sidecar that is not a JSON object.
        LimitExceeded: a sidecar declares too many levels for a column, or a task has too many.
    """
    limits = limits or UploadLimits()
    hed_version = read_hed_version(files)
    by_task: dict[str, list[str]] = {}
    for path in files.events_files():
        task = entities(path).get("task")
        if not task:
            raise DatasetError("events file has no task entity (task-<label>) in its name", path=path)
        by_task.setdefault(task, []).append(path)
    if not by_task:
        raise DatasetError("no *_events.tsv files found")
    tasks = [_task_inventory(files, task, paths, ignore_existing_hed, limits)
             for task, paths in sorted(by_task.items())]
    logger.info("inventory: HED %s, tasks %s", hed_version, [t.task for t in tasks])
    return Inventory(hed_version=hed_version, tasks=tasks)
