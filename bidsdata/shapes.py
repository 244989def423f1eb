"""What an uploaded sidecar may hold: every JSON shape is read, or refused at upload naming the key.

hedtools reads each top-level key of an ``events.json`` as a column's entry and calls ``.get`` on it: a key
whose value is a list, text, number or null (``"Columns": [...]``) makes it raise, so such keys are set aside
with a note in the task's own sidecar (:func:`set_aside`: the rest of it is read) and refused in a deeper one
(which the job would have to rewrite). A ``HED`` that is neither text nor an object of texts is an error in
every row, and is refused here, before anything is stored, with the key and the fix. Everything else is read:
keys that are no column are kept as they are and ignored, and ``Levels`` in any shape is read for its level
names where it has them (an object's keys, a list's items) and rewritten as an object where the job writes
the column.
"""

from __future__ import annotations

from typing import Any

from agents.hedstring import MAX_GROUP_DEPTH, group_depth
from bidsdata.errors import DatasetError

_JSON_TYPES = {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number",
               float: "a number", type(None): "null"}


def json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def check_sidecar(content: object, path: str | None, *, hed: bool = True) -> dict[str, Any]:
    """*content* (a parsed sidecar) when hedtools can read it; raises :class:`DatasetError` naming the key.

    With *hed* false its HED is not looked at (the job drops it: ``--ignore-existing-hed``)."""
    if not isinstance(content, dict):
        raise DatasetError(f"a sidecar must be a JSON object, not {json_type(content)}", path=path)
    for key, entry in content.items():
        if key != key.strip():  # hedtools: SIDECAR_INVALID, and no column of that name can match it
            raise DatasetError(f"key {key!r} has spaces around it: write it as {key.strip()!r}", path=path)
        if key == "HED":
            raise DatasetError("key 'HED' is reserved: a HED column's cells are HED themselves and take no sidecar "
                               "entry; remove it", path=path)
        if not isinstance(entry, dict):
            raise DatasetError(f"key {key!r} holds {json_type(entry)}: each key of a sidecar is a column and must "
                               "hold an object (such as {\"Description\": ...}); remove the key or make it an object",
                               path=path)
        if not hed or "HED" not in entry:
            continue
        given = entry["HED"]
        if isinstance(given, dict):
            bad = next((level for level, text in given.items() if not isinstance(text, str)), None)
            if bad is not None:
                raise DatasetError(f"column {key!r}: the HED of level {bad!r} is {json_type(given[bad])}; write it "
                                   "as a HED string", path=path)
            for level, text in given.items():
                check_depth(text, f"column {key!r}, level {level!r}", path)
        elif isinstance(given, str):
            check_depth(given, f"column {key!r}", path)
        else:
            raise DatasetError(f"column {key!r}: HED is {json_type(given)}; write one HED string with # (a value "
                               "column) or an object level -> HED string (a categorical column)", path=path)
    return content


def check_depth(hed: str, where: str, path: str | None) -> None:
    """Refuse HED whose groups nest deeper than :data:`~agents.hedstring.MAX_GROUP_DEPTH`, before hedtools
    (recursive) reads it: on upload, not later in the job."""
    if (depth := group_depth(hed)) > MAX_GROUP_DEPTH:
        raise DatasetError(f"{where}: HED groups nest {depth:,} deep, more than the {MAX_GROUP_DEPTH} allowed",
                           path=path)


def set_aside(content: object) -> tuple[object, list[str]]:
    """*content* without the keys hedtools cannot read as a column's entry (a list such as ``"Columns": [...]``,
    text, a number, null), and a sentence for each: valid elsewhere in BIDS, they say nothing of a column, and
    the rest of the sidecar is read as usual."""
    if not isinstance(content, dict):
        return content, []
    kept = {k: v for k, v in content.items() if isinstance(v, dict)}
    notes = [f"key {key!r} holds {json_type(entry)}, not a column's entry (an object); it is set aside and left "
             "out of the sidecar written" for key, entry in content.items() if key not in kept]
    return kept, notes


def declared_levels(entry: dict[str, Any]) -> dict[str, str]:
    """The levels a column's ``Levels`` names (level -> its description, ``""`` where it gives none), whatever
    its shape: an object's keys, a list's items; nothing from text, a number or null."""
    levels = entry.get("Levels")
    if isinstance(levels, dict):
        return {str(k): v if isinstance(v, str) else "" for k, v in levels.items()}
    if isinstance(levels, list):
        return {str(v): "" for v in levels if isinstance(v, str | int | float) and not isinstance(v, bool)}
    return {}
