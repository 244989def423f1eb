"""Marker-string levels completed with what the per-level annotator cannot read from their made-up words.

A marker column (:mod:`bidsdata.markers`) has levels that differ by a number (``Trial Start: No.9`` and
``No.10``, ``Reaction: 0.639`` and ``0.468``); the annotator, given "Trial start, number 9", writes
``Experimental-trial`` and drops the 9, so the levels would say the same. Here each labelled number
becomes the value of the tag that says what it is (``Experimental-trial/9`` in place of a bare
``Experimental-trial``), and a bookkeeping marker (``BASE-START``, ``PAUSE``) the annotator gave no event
type, or only the catch-all ``Event``, becomes ``Experiment-structure`` or ``Experiment-control`` rather
than a sensory event with a made-up task role.

Only levels whose description is still the made-up reading of the marker are touched: once the lab has
said what a marker means, its words are annotated as they stand.

The marker column names the events. A column beside it with one level on rows that share an onset
(``type`` = ``Markers`` on every row) can carry no HED (merged into one event, its HED would repeat itself)
and is left out here, with the same note the composer gives, before it is taken for the event column.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bidsdata.assembly import DroppedTags
from bidsdata.columns import is_marker_levels
from bidsdata.composition.rows import NA, EventRows
from bidsdata.composition.tags import EVENT_TYPES, names, short_tag, top_level_items
from bidsdata.inventory import TaskInventory
from bidsdata.markers import event_kind, number_tags
from bidsdata.types import LevelAnnotations

logger = logging.getLogger(__name__)


def _completed(hed: str, value: str, version: str | list[str] | None) -> str:
    known = names(version)
    items = top_level_items(hed)
    added = number_tags(value, version)
    # A bare tag the number now gives a value to goes: "Experimental-trial" and "Experimental-trial/9" both
    # would say the trial twice.
    valued = {short_tag(t, known) for t in added if not t.startswith("(")}
    items = [i for i in items if i.startswith("(") or "/" in i or short_tag(i, known) not in valued]
    kind = event_kind(value)
    types = [i for i in items if not i.startswith("(") and short_tag(i, known) in EVENT_TYPES]
    if not types and not kind and any(short_tag(i, known) == "participant-response" for i in items):
        kind = "Agent-action"  # the annotator said it is a response but named no event: the agent acts
    if kind and all(short_tag(t, known) == "event" for t in types):
        nested = any(i.startswith("(") and short_tag(t, known) in EVENT_TYPES
                     for i in items for t in top_level_items(i[1:-1]) if not t.startswith("("))
        if not nested:  # the annotator named no event (or only "Event"): a bookkeeping marker
            items = [kind] + [i for i in items if i not in types]
    return ", ".join(items + [t for t in added if t not in items])


def _repeated_at_one_onset(column: str, level: str, rows: EventRows) -> bool:
    return any(sum(1 for row in group if row.get(column) == level) > 1 for group in rows.by_onset())


def with_marker_numbers(task: TaskInventory, annotations: LevelAnnotations, events: Mapping[str, str],
                        version: str | list[str] | None, *, rows: EventRows | None = None,
                        ) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """*annotations* (column -> level -> HED, or a template) with the made-up marker levels completed, and
    the one-level columns left out beside a marker column (with a note for each). *rows* are *events* read
    already (the composer reads them once), else they are read here."""
    out: dict[str, Mapping[str, str] | str] = dict(annotations)
    markers = [c for c in task.columns if c.kind == "categorical" and isinstance(annotations.get(c.name), Mapping)
               and is_marker_levels({lv.value: lv.count for lv in c.levels})]
    for column in markers:
        levels = dict(annotations[column.name])  # type: ignore[arg-type]
        for level in column.levels:
            if level.needs_description and levels.get(level.value):
                levels[level.value] = _completed(levels[level.value], level.value, version)
        logger.debug("marker column %s: %d levels completed", column.name, len(levels))
        out[column.name] = levels
    notes: list[DroppedTags] = []
    if not markers:
        return out, notes
    rows = EventRows.read(events) if rows is None else rows
    for name, given in annotations.items():
        if not isinstance(given, Mapping) or len(given) != 1 or name in {c.name for c in markers}:
            continue
        level, hed = next(iter(given.items()))
        if level not in NA and _repeated_at_one_onset(name, level, rows):
            del out[name]
            notes.append(DroppedTags(name, level, (hed,), redundant=True,
                                     reason="two events at one onset share this level, and its HED would repeat "
                                            "itself"))
    return out, notes
