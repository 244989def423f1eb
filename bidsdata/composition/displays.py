"""Screen displays that replace one another, as ``Onset``/``Offset`` of what each shows.

A fixation cross, then a face, then a circle: each display stays on the screen until the next one takes
its place, and an events file that gives them no duration says only when each appears. A curator writes
what each display shows as a definition (the shown things in the foreground, a background behind them),
its event as the ``Onset`` of that definition and the ``Offset`` of the display it replaces, so that every
moment of the recording says what is on the screen (hedtools' EventManager then knows each display's
extent).

The order is read from the events files, never guessed: a display level gets the ``Offset`` of the display
that stands before it on every one of its rows, and the whole step is left out when the files do not agree
(a level that follows different displays, two displays at one onset, displays with durations of their
own), since an ``Offset`` of something not on the screen is an error.
"""

from __future__ import annotations

from collections.abc import Mapping

from bidsdata.composition import cues
from bidsdata.composition.definitions import Definitions, def_name
from bidsdata.composition.events import event_groups
from bidsdata.composition.roles import CONDITION, EVENT
from bidsdata.composition.rows import NA, EventRows
from bidsdata.composition.tags import (
    ACTION_ROLES,
    EVENT_TYPES,
    STIMULUS_ROLES,
    TASK_ROLES,
    Names,
    inside,
    shorts,
    top_level_items,
)
from bidsdata.inventory import TaskInventory
from bidsdata.types import ComposedHed

_SHOWING = {"show", "shows", "shown", "display", "displays", "displayed", "appear", "appears", "appeared",
            "presented", "presentation", "screen", "onset"}
"""Words that say a level puts something on the screen."""
_ROLE_LIKE = TASK_ROLES | STIMULUS_ROLES | ACTION_ROLES | {"intended-effect"}


def _shown(item: str, known: Names) -> bool:
    """Whether a top-level item of an event names something shown (an item, with its properties)."""
    return any(known.long.get(s, "").startswith("Item/") for s in shorts(item, known))


def _presentation(item: str, known: Names) -> bool:
    tags = set(shorts(item, known))
    return bool(tags & known.modalities) and tags <= known.modalities | {"computer-screen", "def"}


def _display(hed: str, words: list[str], known: Names) -> tuple[str, list[str], list[str]] | None:
    """(event group, shown items, presentation items) of a level that puts things on the screen; None for any
    other level (an action, a sound, a level with several events or with something lasting already)."""
    groups = event_groups(hed, known)
    if len(groups) != 1 or len(top_level_items(hed)) != 1 or not set(words) & _SHOWING:
        return None
    items = top_level_items(inside(groups[0]))
    tags = set(shorts(groups[0], known))
    if "sensory-event" not in tags or "visual-presentation" not in tags:
        return None
    presentation = [i for i in items if _presentation(i, known)]
    shown = [i for i in items if "{" not in i and i not in presentation and _shown(i, known)]
    return (groups[0], shown, presentation) if shown and presentation else None


def _stimulus_levels(column: str, rows: EventRows, roles: Mapping[str, str]) -> set[str]:
    """Levels of *column* on whose rows, and only there, the design's factors have values: the factors
    describe these events, so they are the experiment's stimuli (whatever else they mark)."""
    factors = [c for c, r in roles.items() if r == CONDITION]
    with_factor: set[str] = set()
    without: set[str] = set()
    for row in rows.all():
        level = row.get(column)
        if level in NA or level is None:
            continue
        (with_factor if any(row.get(f) not in NA and row.get(f) is not None for f in factors) else without).add(level)
    return with_factor - without


def _order(column: str, shows: Mapping[str, str], rows: EventRows) -> dict[str, str | None] | None:
    """level -> the display (its definition's name) on the screen before each of its rows, or None when it is
    the first; None for the whole when the files disagree or displays share an onset or have durations."""
    before: dict[str, set[str | None]] = {}
    for path_rows in rows.files.values():
        showing: str | None = None
        last_onset = None
        for row in path_rows:
            level = row.get(column)
            if level not in shows:
                continue
            onset = (row.get("onset") or "").strip()
            duration = (row.get("duration") or "").strip()
            lasts = duration not in NA and cues.NUMBER.match(duration) and float(duration) > 0
            if onset in NA or onset == last_onset or lasts:
                return None
            last_onset = onset
            before.setdefault(level, set()).add(showing)
            showing = shows[level]
    order: dict[str, str | None] = {}
    for level, found in before.items():
        if len(found) != 1:
            return None
        previous = next(iter(found))
        order[level] = None if previous == shows[level] else previous
    return order


def screen_displays(task: TaskInventory, annotations: ComposedHed, roles: Mapping[str, str], rows: EventRows,
                    known: Names, defs: Definitions, describe: Mapping[str, str]) -> list[str]:
    """Display levels of the event column as ``Onset`` of what they show and ``Offset`` of the display before;
    the definitions made (none when the events files do not give one order)."""
    column = next((c for c, r in roles.items() if r == EVENT and isinstance(annotations.get(c), Mapping)), None)
    if column is None:
        return []
    levels: dict[str, str] = dict(annotations[column])
    found = {}
    for level, hed in levels.items():
        display = _display(hed, cues.words(describe.get(level) or level.replace("_", " "), level), known)
        if display:
            found[level] = display
    if len(found) < 2:
        return []
    stimuli = _stimulus_levels(column, rows, roles)
    parts = {level: _parts(group, shown, presentation, level in stimuli, known)
             for level, (group, shown, presentation) in found.items()}
    # Levels that show the same things in the same role show one display (an initial face and later faces).
    names: dict[str, str] = {}
    shows: dict[str, str] = {}
    for level, (body, _) in parts.items():
        if body not in names:
            shown = found[level][1]
            names[body] = def_name([*[w for i in shown for s in shorts(i, known) for w in s.split("-")], "display"], 5)
        shows[level] = names[body]
    order = _order(column, shows, rows)
    if order is None or len(set(shows.values())) < 2:
        return []
    made = {name: defs.add(name, body) for body, name in names.items()}
    for level, (_, rest) in parts.items():
        name = made[shows[level]]
        onset = f"(Def/{name}, ({', '.join(rest)}), Onset)" if rest else f"(Def/{name}, Onset)"
        previous = order.get(level)
        levels[level] = onset + (f", (Def/{made[previous]}, Offset)" if previous else "")
    annotations[column] = levels
    return list(made.values())


def _parts(group: str, shown: list[str], presentation: list[str], stimulus: bool,
           known: Names) -> tuple[str, list[str]]:
    """(the display's definition body, what the level adds to its Onset) for a display level's event group.

    The definition holds the whole event: its type and role with what is shown, so that the Onset group is
    an event hedtools' EventsChecker accepts even where another event shares its onset."""
    items = top_level_items(inside(group))
    kinds = [i for i in items if set(shorts(i, known)) & EVENT_TYPES]
    given = [i for i in items if i not in kinds and set(shorts(i, known)) & _ROLE_LIKE]
    # What it marks aside, the factors set on its rows say it is the experiment's stimulus.
    role = ["Experimental-stimulus"] if stimulus else given
    rest = [i for i in items if i not in kinds + given + presentation + shown]
    body = ", ".join([*kinds, *role, *presentation, "(Foreground-view, " + ", ".join(shown) + ")", "Background-view"])
    return body, rest
