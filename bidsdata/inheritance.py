"""BIDS inheritance: the HED a job writes at the root takes effect in every events file, lower sidecars too.

An events file reads every ``*_events.json`` in its folder and the folders above it whose entities it has
(``task-x_events.json`` at the root, ``sub-01/sub-01_task-x_events.json``, ``..._run-1_events.json`` beside
it); a key defined in several is taken from the deepest, whole, so a lower sidecar that redefines a column
hides the root's HED for that column there. :func:`lower_sidecars` gives each such sidecar the written HED
for the keys it redefines (its own ``Description``, ``Levels`` and the rest stay), and removes its own HED of
a column the job annotates but left without HED, so the HED that was validated is the HED that applies. A
lower sidecar that then uses definitions carries the written keys that define them: hedtools' ``BidsDataset``
validates every sidecar on its own, so a ``Def/`` must find its ``Definition`` in the same file.
:func:`effective_sidecar` merges them for one events file, as a BIDS validator does.

Pure Python: no Django, no hedtools.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from bidsdata.archive import DatasetFiles
from bidsdata.inventory import entities

logger = logging.getLogger(__name__)


def applies(sidecar: str, events: str) -> bool:
    """Whether the sidecar at path *sidecar* applies to the events file at *events* (both dataset paths)."""
    folder, there = PurePosixPath(sidecar).parent, PurePosixPath(events).parent
    if folder != there and folder not in there.parents:
        return False
    mine, theirs = entities(sidecar), entities(events)
    return all(theirs.get(name) == value for name, value in mine.items())


def _depth(path: str) -> tuple[int, int, str]:
    return path.count("/"), len(entities(path)), path


def effective_sidecar(sidecars: Mapping[str, Any], events: str) -> dict[str, Any]:
    """The sidecar an events file reads: every applying one (path -> content), the deepest key winning."""
    merged: dict[str, Any] = {}
    for path in sorted((p for p in sidecars if applies(p, events)), key=_depth):
        if isinstance(sidecars[path], dict):
            merged.update(sidecars[path])
    return merged


def lower_sidecars(files: DatasetFiles, written: Mapping[str, dict[str, Any]],
                   events_of: Mapping[str, Iterable[str]] | None = None) -> dict[str, dict[str, Any]]:
    """The dataset's other sidecars that redefine a key of a *written* one (name -> content), rewritten so the
    written HED applies: path -> the new content, only for those that change.

    *events_of* (written name -> its task's events files) says which sidecars matter: those that apply to
    one of them; without it, those carrying the written sidecar's task (or no task) in a folder below.
    """
    rewritten: dict[str, dict[str, Any]] = {}
    for name, sidecar in written.items():
        task = entities(name).get("task")
        events = list((events_of or {}).get(name, ()))
        for path in files.sidecar_files():
            if path == name or path in written:
                continue
            if events:
                if not any(applies(path, e) for e in events):
                    continue
            elif entities(path).get("task") not in (None, task):
                continue
            try:
                content = rewritten.get(path) or files.json(path)
            except ValueError:  # unreadable JSON was refused at upload; nothing of ours to carry there
                continue
            changed = _carried(content, sidecar)
            if changed is not None:
                rewritten[path] = changed
    if rewritten:
        logger.info("the written HED carried into %d lower sidecar(s)", len(rewritten))
    return rewritten


def _carried(lower: Any, written: Mapping[str, Any]) -> dict[str, Any] | None:
    """*lower* with the HED of *written* in every key both define, or None where nothing changes."""
    if not isinstance(lower, dict):
        return None
    result = copy.deepcopy(lower)
    changed = False
    for key, entry in written.items():
        own = result.get(key)
        if key not in result or not isinstance(entry, dict):
            continue
        own = dict(own) if isinstance(own, dict) else {}
        before = own.get("HED")
        if "HED" in entry:
            own["HED"] = copy.deepcopy(entry["HED"])
            if isinstance(entry.get("Levels"), dict):
                # Levels the written HED names are described here too (a level only the root described).
                levels = dict(own["Levels"]) if isinstance(own.get("Levels"), dict) else {}
                for level, text in entry["Levels"].items():
                    levels.setdefault(level, text)
                own["Levels"] = levels
        else:
            own.pop("HED", None)
        if own != result[key] or own.get("HED") != before:
            result[key] = own
            changed = True
    if changed and _uses_definitions(result):
        # hedtools validates each sidecar of a dataset on its own: a Def/ here needs its Definition here. The
        # written keys holding definitions come whole (the same key, so merged they stay one).
        for key, entry in written.items():
            if _defines(entry) and result.get(key) != entry:
                result[key] = copy.deepcopy(entry)
    return result if changed else None


def _hed_texts(entry: Any) -> list[str]:
    hed = entry.get("HED") if isinstance(entry, dict) else None
    return [hed] if isinstance(hed, str) else [str(v) for v in hed.values()] if isinstance(hed, dict) else []


def _defines(entry: Any) -> bool:
    return any("definition/" in text.lower() for text in _hed_texts(entry))


def _uses_definitions(sidecar: Mapping[str, Any]) -> bool:
    return any("def/" in text.lower() or "def-expand/" in text.lower()
               for entry in sidecar.values() for text in _hed_texts(entry))
