"""What each column of a task does for its events.

- ``event``: gives the event its type (``event_type``, ``trial_type``, a code column...); the event column
  is the one that covers most rows, named as BIDS names it, with levels that most often carry an event type;
  a column that holds events on rows where the event column is empty gives events too.
- ``condition``: a factor of the design (its name or description says factor, condition, group, phase, ...:
  :data:`agents.conventions.CONDITION`; or its value stays the same over long runs of rows): its levels become
  definitions.
- ``modifier``: adds to the event of its row (a task role, a stimulus attribute, a response side).
- ``value``: a ``#`` template.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agents import conventions
from bidsdata.columns import names_event_type
from bidsdata.composition import cues
from bidsdata.composition.rows import NA, EventRows
from bidsdata.composition.tags import Names, has_event
from bidsdata.inventory import TaskInventory

EVENT, CONDITION, MODIFIER, VALUE = "event", "condition", "modifier", "value"
# Code columns name events too, but a column of words (stimulus, response) is the better event column.
_CODE_NAME = re.compile(r"^(event_)?code$|^value$|^trigger$", re.IGNORECASE)
MAX_CONDITION_LEVELS = 12
MIN_CONDITION_RUN = 8.0
ALONE_SHARE = 0.02
"""Share of a column's rows with no event column value beyond which it gives those rows their events
(one stray row never does)."""


def column_roles(task: TaskInventory, annotations: Mapping[str, Mapping[str, str] | str], rows: EventRows,
                 known: Names) -> dict[str, str]:
    """column -> role for every annotated column of *task*."""
    roles = {c: VALUE for c, a in annotations.items() if isinstance(a, str)}
    levels = {c: a for c, a in annotations.items() if isinstance(a, Mapping) and a}
    if not levels:
        return roles
    total = max(1, sum(1 for _ in rows.all()))

    def score(name: str) -> tuple[float, float]:
        typed = sum(has_event(h, known) for h in levels[name].values()) / len(levels[name])
        named = 1.0 if names_event_type(name) else 0.5 if _CODE_NAME.search(name) else 0.0
        return rows.present(name) / total * 2 + typed + named, named

    order = [c.name for c in task.columns if c.name in levels]
    first = max(order, key=lambda name: (score(name), -order.index(name)))
    roles[first] = EVENT
    for name in order:
        if name == first:
            continue
        given = [row.get(first) in NA for row in rows.all() if row.get(name) not in NA]
        alone = given.count(True)
        typed = any(has_event(h, known) for h in levels[name].values())
        # Where it alone tells of a row's event (a share beyond stray rows), its levels must say what kind of
        # event that is: a lone attribute (Famous) is no event to hedtools' event checks.
        if (alone and typed) or alone > max(1.0, ALONE_SHARE * len(given)):
            roles[name] = EVENT
        elif _is_condition(task, name, len(levels[name]), rows):
            roles[name] = CONDITION
        else:
            roles[name] = MODIFIER
    return roles


def _is_condition(task: TaskInventory, name: str, count: int, rows: EventRows) -> bool:
    if not 2 <= count <= MAX_CONDITION_LEVELS:
        return False
    column = task.column(name)
    said = cues.words(name, column.description if column and not column.needs_description else "",
                      getattr(column, "long_name", "") or "")
    return bool(conventions.said(said, conventions.CONDITION)) or rows.run_length(name) >= MIN_CONDITION_RUN
