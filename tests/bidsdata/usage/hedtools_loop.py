"""hedtools' own loop, written as a user of hedtools writes it, to compare the package's answers with; and a
made-up BIDS dataset (its names invented here) with definitions, conditions, Onset/Offset and Delay."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data" / "bids"
VERSION_FILE = "dataset_description.json"


def version_of(folder: Path) -> Any:
    return json.loads((folder / VERSION_FILE).read_text())["HEDVersion"]


def tasks_of(folder: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.rglob("*_events.tsv")):
        task = next(p.split("-", 1)[1] for p in path.name.split("_") if p.startswith("task-"))
        found.setdefault(task, []).append(path)
    return found


def root_sidecar(folder: Path, task: str) -> Path:
    """The task's one sidecar (the test datasets have no lower ones: checked)."""
    lower = [p for p in folder.rglob("*_events.json") if p.parent != folder]
    assert not lower, f"a lower sidecar the bare loop would not read: {lower}"
    return folder / f"task-{task}_events.json"


def bare_events(folder: Path, task: str, *, include_context: bool = True, replace_defs: bool = False,
                remove_types: tuple[str, ...] = ()) -> list[tuple[str, Any, list[Any]]]:
    """Per events file: (path relative to *folder*, hedtools' EventManager, get_hed_objs' objects)."""
    from hed.models import Sidecar, TabularInput
    from hed.schema import load_schema_version
    from hed.tools.analysis.event_manager import EventManager
    from hed.tools.analysis.hed_tag_manager import HedTagManager

    schema = load_schema_version(version_of(folder))
    sidecar = Sidecar(str(root_sidecar(folder, task)))
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in tasks_of(folder)[task]:
            manager = EventManager(TabularInput(str(path), sidecar=sidecar), schema)
            objects = HedTagManager(manager, remove_types=list(remove_types)).get_hed_objs(
                include_context=include_context, replace_defs=replace_defs)
            found.append((path.relative_to(folder).as_posix(), manager, objects))
    return found


def bare_search(folder: Path, task: str, queries: list[str], **options: Any) -> dict[str, list[list[int]]]:
    """Per events file, per event, each query's 0/1 as hedtools' search_hed_objs gives it."""
    from hed import QueryHandler, search_hed_objs

    handlers = [QueryHandler(q) for q in queries]
    names = [f"query_{i}" for i in range(len(queries))]
    found = {}
    for path, _manager, objects in bare_events(folder, task, **options):
        frame = search_hed_objs(objects, handlers, names)
        found[path] = [[int(v) for v in row] for row in frame[names].itertuples(index=False)]
    return found


def bare_factors(folder: Path, task: str, type_tag: str, encoding: str) -> dict[str, Any]:
    """Per events file, hedtools' get_factor_vectors (a DataFrame, or None)."""
    from hed.models import Sidecar, TabularInput
    from hed.schema import load_schema_version
    from hed.tools.analysis.event_manager import EventManager
    from hed.tools.analysis.hed_type_manager import HedTypeManager

    schema = load_schema_version(version_of(folder))
    sidecar = Sidecar(str(root_sidecar(folder, task)))
    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in tasks_of(folder)[task]:
            types = HedTypeManager(EventManager(TabularInput(str(path), sidecar=sidecar), schema))
            types.add_type(type_tag)
            found[path.relative_to(folder).as_posix()] = types.get_factor_vectors(type_tag, factor_encoding=encoding)
    return found


MADE_UP_SIDECAR = {
    "trial_kind": {
        "Description": "Which kind of trial the row starts",
        "HED": {"go": "Sensory-event, Visual-presentation, Experimental-stimulus, Def/Go-cond, (Green, Square)",
                "halt": "Sensory-event, Visual-presentation, Experimental-stimulus, Def/Halt-cond, (Red, Triangle)"}},
    "reaction": {"Description": "Seconds to the press",
                 "HED": "(Delay/# s, (Agent-action, Participant-response, Press))"},
    "phase": {"Description": "Where the recording's phase starts and ends",
              "HED": {"start": "(Def/Session-phase, Onset)", "end": "(Def/Session-phase, Offset)"}},
    "defs": {"HED": {
        "go_def": "(Definition/Go-cond, (Condition-variable/Trial-kind, Label/Go))",
        "halt_def": "(Definition/Halt-cond, (Condition-variable/Trial-kind, Label/Halt))",
        "phase_def": "(Definition/Session-phase, (Time-block, Label/Phase))"}},
}
MADE_UP_ROWS = [("1.0", "go", "0.4", "start"), ("2.0", "go", "n/a", "n/a"), ("3.0", "halt", "0.6", "n/a"),
                ("4.5", "go", "0.3", "n/a"), ("6.0", "halt", "n/a", "end")]


def events_text(rows: list[tuple[str, str, str, str]]) -> str:
    return "onset\tduration\ttrial_kind\treaction\tphase\n" + "".join(f"{o}\t0.5\t{k}\t{r}\t{p}\n"
                                                                       for o, k, r, p in rows)


def made_up_dataset(folder: Path, *, runs: int = 3) -> Path:
    """A BIDS folder of one task (``demo``) of *runs* events files (each without one of the middle rows), with a
    root sidecar of made-up names."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / VERSION_FILE).write_text(json.dumps({"Name": "made up", "BIDSVersion": "1.9.0", "HEDVersion": "8.4.0"}))
    (folder / "task-demo_events.json").write_text(json.dumps(MADE_UP_SIDECAR))
    for run in range(1, runs + 1):
        target = folder / "sub-01" / "eeg" / f"sub-01_task-demo_run-{run}_events.tsv"
        target.parent.mkdir(parents=True, exist_ok=True)
        dropped = run % 3 + 1
        target.write_text(events_text([r for i, r in enumerate(MADE_UP_ROWS) if i != dropped]))
    return folder
