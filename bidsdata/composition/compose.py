"""A task's sidecar HED composed as a curator would write it, from the levels' own annotations.

Each level is annotated alone (a run per level, reviewed per level); this is where they become one
sidecar. :func:`compose_task` starts a :class:`~.state.Draft` from the levels' annotations and runs the
conventions of :data:`.passes.PASSES` over it in order: columns get roles (:mod:`.roles`), start/end codes
become Onset/Offset and factors Condition-variable definitions (:mod:`.definitions`), screen displays that
replace one another the Onset of what each shows and the Offset of the one before (:mod:`.displays`),
marker strings' numbers tag values (:mod:`.markers`), modifier columns lose event types of their own, each
event is one completed group (:mod:`.events`), columns that describe an event are nested into it with
``{column}``, the columns that tell of the response go into its response time (:mod:`.responses`), levels of
a column are told apart (:mod:`.distinct`), and levels whose rows last over other events get their duration
(:mod:`.spans`). The levels' own annotations are never changed; what the sidecar does differently is reported
in the notes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bidsdata.assembly import drop_repeated
from bidsdata.composition.passes import PASSES
from bidsdata.composition.roles import CONDITION
from bidsdata.composition.state import Composition, Draft, lab_names
from bidsdata.inventory import TaskInventory

logger = logging.getLogger(__name__)


def compose_task(task: TaskInventory, annotations: Mapping[str, Mapping[str, str] | str],
                 events: Mapping[str, str], schema_version: str | list[str] | None) -> Composition:
    """The sidecar HED for *task* from the levels' annotations (column -> level -> HED, or a template)."""
    draft = Draft.start(task, annotations, events, schema_version)
    for convention in PASSES:
        convention(draft)
    return draft.composition()


def plain_composition(annotations: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                      columns: list[str], schema_version: str | list[str] | None) -> Composition:
    """The levels' own HED with only repeats across an event's columns taken out: the floor to fall back on."""
    chosen, notes = drop_repeated(annotations, events, columns, schema_version)
    return Composition(annotations=dict(chosen), notes=notes)


__all__ = ["CONDITION", "Composition", "compose_task", "lab_names", "plain_composition"]
