"""Valid by construction: a composed sidecar hedtools finds errors in is repaired where the errors are.

Composing sees every column at once, so a dataset shaped as nobody foresaw can give one column, one level or
one template HED that hedtools refuses. That part alone goes back to the levels' own HED (the plain
composition, :func:`.compose.plain_composition`); a level or template still refused after that is left out
of the sidecar and reported (a :class:`DroppedTags` note: it is listed as lacking HED, so it is asked about),
never the whole task sent back. Each round validates once; the rounds are bounded, and a sidecar with no
HED left in the blamed places has nothing left to fail.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agents.hedstring import top_level_items
from bidsdata import tsv
from bidsdata.assembly import DroppedTags, repeat_key
from bidsdata.composition.compose import Composition, compose_task, plain_composition
from bidsdata.composition.merged import without_onset_repeats
from bidsdata.composition.spans import DURATION
from bidsdata.inventory import TaskInventory
from bidsdata.issues import SIDECAR, SidecarIssue

logger = logging.getLogger(__name__)

MAX_ROUNDS = 4
"""Validations after the first: one to try the blamed columns' plain HED, the rest to leave out what still fails."""
Place = tuple[str, str | None]  # (column, level); level None: the column's template or the whole column


@dataclasses.dataclass
class Repaired(Composition):
    """A composition that also leaves out the HED of uploaded sidecar keys hedtools refuses (keys that are no
    annotated column: a definitions entry, a column no events file has)."""

    bare: tuple[str, ...] = ()

    def apply(self, sidecar: dict[str, Any]) -> dict[str, Any]:
        sidecar = super().apply(sidecar)
        for key in self.bare:
            entry = sidecar.get(key)
            if isinstance(entry, dict):
                entry.pop("HED", None)
        return sidecar


def _foreign(issues: Iterable[SidecarIssue], composition: Composition) -> set[str]:
    """Sidecar keys the errors name that the job does not write: their uploaded HED is what fails."""
    return {i.column for i in issues if i.column and i.column not in composition.annotations
            and i.column != composition.entry and not (i.column == DURATION and composition.spans)}


def _reason(level: str | None, code: str) -> str:
    if level is not None and level != level.strip():
        return (f"the value {level!r} has spaces around it in the events files, so no HED can match it "
                f"({code}): {_fix(level)}")
    return f"its HED fails validation with the events files ({code}); describe it and annotate it again"


def _fix(level: str | None) -> str:
    """The lab's data fix for a level no HED can take (spaces around a value), else ""."""
    if level is None or level == level.strip():
        return ""
    return f"write {level!r} as {level.strip()!r} in the events files (remove the spaces around it)"


def _note(column: str, level: str | None, code: str) -> DroppedTags:
    return DroppedTags(column, level, (), reason=_reason(level, code), fix=_fix(level))


def _settled(composition: Composition, events: Mapping[str, str], columns: list[str]) -> Composition:
    """*composition* without items that rows at one onset would repeat in their one event (:mod:`.merged`)."""
    annotations, notes = without_onset_repeats(composition.annotations, events, columns)
    if not notes and annotations == composition.annotations:
        return composition
    return dataclasses.replace(composition, annotations=annotations, notes=[*composition.notes, *notes])


def _blamed(issues: Iterable[SidecarIssue], composition: Composition) -> set[Place]:
    """The (column, level) pairs of *composition* each error points at (the row's givers for a row's issue)."""
    places: set[Place] = set()
    for issue in issues:
        pairs = [(issue.column, issue.level)] if issue.column else list(issue.related) or _quoting(issue, composition)
        for column, level in pairs:
            given = composition.annotations.get(column)
            if isinstance(given, Mapping):
                places.add((column, level if level in given else None))
            elif given is not None:
                places.add((column, None))
    return places


def _quoting(issue: SidecarIssue, composition: Composition) -> list[Place]:
    """The levels (and templates) whose HED holds, at its top level, the item a row's issue quotes: the merged
    event's rows are not named when hedtools joins rows it does not read as one onset."""
    quoted = re.search(r'"(.+)"', issue.message)
    if quoted is None:
        return []
    wanted = repeat_key(quoted.group(1))
    found: list[Place] = []
    for column, given in composition.annotations.items():
        texts = given.items() if isinstance(given, Mapping) else [(None, given)]
        found += [(column, level) for level, text in texts
                  if any(repeat_key(item) == wanted for item in top_level_items(str(text)))]
    return found


def _referencing(annotations: Mapping[str, Any], columns: set[str]) -> set[str]:
    """The columns whose HED nests one of *columns* (``{column}``): they cannot stay composed without it."""
    found: set[str] = set()
    for column, given in annotations.items():
        texts = given.values() if isinstance(given, Mapping) else [given]
        if column not in columns and any(f"{{{c}}}" in str(t) for t in texts for c in columns):
            found.add(column)
    return found


def _with_plain(composition: Composition, plain: Composition, columns: set[str]) -> Composition:
    """*composition* with *columns*, and the columns that nest them, back to the levels' own HED."""
    columns = set(columns)
    while more := _referencing(composition.annotations, columns):
        columns |= more
    annotations = dict(composition.annotations)
    notes = list(composition.notes)
    for column in columns:
        if column in plain.annotations:
            annotations[column] = plain.annotations[column]
        elif (given := annotations.pop(column, None)) is not None:  # the plain HED has nothing valid for it
            levels = list(given) if isinstance(given, Mapping) else [None]
            notes += [_note(column, lv, "no valid HED of its own") for lv in levels]
    return dataclasses.replace(composition, annotations=annotations, notes=notes)


def _left_out(composition: Composition, plain: Composition, places: set[Place], code: str) -> Composition:
    """*composition* without the HED of *places*; a column that nested one left without HED goes plain."""
    annotations: dict[str, Any] = {c: dict(v) if isinstance(v, Mapping) else v
                                   for c, v in composition.annotations.items()}
    notes = list(composition.notes)
    for column, level in sorted(places, key=lambda p: (p[0], p[1] or "")):
        given = annotations.get(column)
        if isinstance(given, dict) and level is not None:
            if given.pop(level, None) is not None:
                notes.append(_note(column, level, code))
        elif given is not None:
            annotations.pop(column)
            levels = list(given) if isinstance(given, dict) else [None]
            notes += [_note(column, lv, code) for lv in levels]
    gone = {column for column in composition.annotations if not annotations.get(column)}
    annotations = {c: v for c, v in annotations.items() if v}
    result = dataclasses.replace(composition, annotations=annotations, notes=notes)
    nesting = _referencing(annotations, gone)
    return _with_plain(result, plain, nesting) if nesting else result


def valid_composition(task: TaskInventory, chosen: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                      schema_version: str | list[str] | None,
                      errors: Callable[[Composition], list[SidecarIssue]]) -> Composition:
    """The composed sidecar HED for *task*, repaired until *errors* (the sidecar's hedtools errors with every
    events file) finds none, or nothing is left to leave out."""
    composition, plain = first_composition(task, chosen, events, schema_version)
    return keep_the_floor(task, composition, plain, events, errors)


def first_composition(task: TaskInventory, chosen: Mapping[str, Mapping[str, str] | str],
                      events: Mapping[str, str], schema_version: str | list[str] | None,
                      ) -> tuple[Repaired, Composition]:
    """The composed HED (the levels' own HED where composing fails) and the plain HED to fall back on, each
    without what rows at one onset would repeat in their one event (hedtools reads them as one event)."""
    columns = [c.name for c in task.columns]
    plain = plain_composition(chosen, events, columns, schema_version)
    try:
        composition = compose_task(task, chosen, events, schema_version)
    except Exception:  # a shape the composer cannot take: the plain HED is the floor, never a failed job
        logger.exception("task %s: composing failed; the levels' own HED is used", task.task)
        composition = plain
        composition.fallback = "the sidecar could not be composed from these events; the levels' own HED is used"
    repaired = Repaired(**{f.name: getattr(composition, f.name) for f in dataclasses.fields(composition)})
    plain = _settled(plain, events, columns)
    return _settled(repaired, events, columns), plain  # type: ignore[return-value]


def keep_the_floor(task: TaskInventory, composition: Repaired, plain: Composition, events: Mapping[str, str],
                   errors: Callable[[Composition], list[SidecarIssue]]) -> Composition:
    """Valid is the floor: the blamed columns of *composition* go back to *plain* (all of it when the
    definitions fail), then each level or template still refused is left out and noted, for a few rounds."""
    columns = [c.name for c in task.columns]
    errors = _the_sidecars(errors, events)
    found = errors(composition)
    if foreign := _foreign(found, composition):  # the lab's own keys that fail: left out, the rest stays composed
        _bare(task, composition, foreign)
        found = errors(composition)
    if names := _temporal_names(found):
        if glitches := _glitches(task, composition, found, set(names)):  # the data's few: the spans stay
            errors = _excusing(errors, glitches)
            found = errors(composition)
            names = _temporal_names(found)
        if names:
            composition = _settled(_untimed(composition, names, found), events, columns)
            found = errors(composition)
    if found and (own := _own_faults(found, composition)):  # a level's HED that fails alone: that level goes back
        reason = found[0].message.splitlines()[0][:200]
        composition = _settled(_plain_levels(composition, plain, own), events, columns)
        composition.fallback = (f"errors in {', '.join(f'{c} {lv!r}' for c, lv in sorted(own))} (the other levels "
                                f"stay composed): {reason}")
        found = errors(composition)
    # What still fails alone is left out below, level by level; anything else sends its columns back to plain.
    if found and composition.annotations is not plain.annotations and not _own_faults(found, composition):
        composition = _settled(_plain_where_blamed(composition, plain, found), events, columns)
        found = errors(composition)
    for _ in range(MAX_ROUNDS):
        places, foreign = _blamed(found, composition), _foreign(found, composition)
        if not found or not (places or foreign - set(composition.bare)):
            break
        if foreign:
            _bare(task, composition, foreign)
        logger.warning("task %s: %d error(s) left; leaving out %d level(s)/template(s)", task.task, len(found),
                       len(places))
        composition = _settled(_left_out(composition, plain, places, found[0].code), events, columns)
        found = errors(composition)
    if found:
        logger.warning("task %s: %d error(s) no level is blamed for: %s", task.task, len(found), found[0].message)
    return composition


Line = tuple[str, int | None]

GLITCH_SHARE = tsv.GLITCH_SHARE
"""A span whose timing hedtools refuses on at most this share of its levels' rows stays a span: a start and
its end at one instant once in hundreds of events is the recording's glitch (codes dumped together when it
starts), and undoing the span would cost every other event its meaning. Refused more often, the pairing is
what the data contradicts, and the levels become events of their own (:func:`_untimed`)."""


def data_faults(events: Mapping[str, str]) -> set[Line]:
    """The events rows hedtools refuses whatever the sidecar says (:func:`.tsv.glitch_lines`)."""
    return set(tsv.glitch_lines(events))


def _the_sidecars(errors: Callable[[Composition], list[SidecarIssue]], events: Mapping[str, str],
                  ) -> Callable[[Composition], list[SidecarIssue]]:
    """*errors* without those at :func:`data_faults`: no level is left out (and no span undone) for them;
    validation still reports them, and the inventory names the repeated rows to the lab."""
    faulty = data_faults(events)
    if faulty:
        logger.info("%d events rows repeat a row of their event: the data's fault, not the sidecar's", len(faulty))
    return _excusing(errors, faulty)


def _excusing(errors: Callable[[Composition], list[SidecarIssue]], lines: set[Line],
              ) -> Callable[[Composition], list[SidecarIssue]]:
    if not lines:
        return errors
    return lambda composition: [i for i in errors(composition) if (i.source, i.row) not in lines]


def _glitches(task: TaskInventory, composition: Composition, found: list[SidecarIssue], names: set[str],
              ) -> set[Line]:
    """The events rows of the spans among *names* that hedtools refuses on few of their rows (see
    :data:`GLITCH_SHARE`): the data's fault, reported by validation, not undone here."""
    refused: dict[str, set[Line]] = {}
    for issue in found:
        if issue.code == "TEMPORAL_TAG_ERROR" and (m := _TEMPORAL_NAME.search(issue.message)):
            refused.setdefault(m.group(1).lower(), set()).add((issue.source, issue.row))
    counts = {(c.name, lv.value): lv.count for c in task.columns for lv in c.levels}
    used: dict[str, int] = {}
    for column, given in composition.annotations.items():
        for level, hed in (given.items() if isinstance(given, Mapping) else ()):
            for name, _ in _TIMED.findall(hed):
                used[name.lower()] = used.get(name.lower(), 0) + counts.get((column, level), 0)
    few = {n for n in names & set(refused) if len(refused[n]) <= GLITCH_SHARE * used.get(n, 0)}
    if few:
        logger.info("spans %s kept: hedtools refuses their timing on a few rows only", sorted(few))
    return {line for n in few for line in refused[n]}


_TEMPORAL_NAME = re.compile(r"(?:uses name '|tag 'Def/)([^'/]+)", re.IGNORECASE)


def _temporal_names(found: Iterable[SidecarIssue]) -> dict[str, SidecarIssue]:
    """Definition name (lower case) -> the first temporal error naming it: an Offset at its Onset's own time, or
    without an Onset, in the events files' timing."""
    names: dict[str, SidecarIssue] = {}
    for issue in found:
        if issue.code == "TEMPORAL_TAG_ERROR" and (m := _TEMPORAL_NAME.search(issue.message)):
            names.setdefault(m.group(1).lower(), issue)
    return names


def _untimed(composition: Repaired, names: Mapping[str, SidecarIssue], found: list[SidecarIssue]) -> Repaired:
    """*composition* with the definitions *names* no longer started and ended: the start level says the thing
    (``Def/X``, an event at its time), the end level is left without HED and noted.

    The events files' timing, not the annotation, is what hedtools refuses (an end code at its start code's own
    time, or without one); the rest of the column stays composed, and the lab is told where the timing fails."""
    annotations = {c: dict(v) if isinstance(v, Mapping) else v for c, v in composition.annotations.items()}
    notes = list(composition.notes)
    for column, given in annotations.items():
        if not isinstance(given, dict):
            continue
        for level, hed in list(given.items()):
            found_name = _TIMED.search(hed)
            if found_name is None or (name := found_name.group(1)).lower() not in names:
                continue
            issue = names[name.lower()]
            where = f" ({issue.source.rsplit('/', 1)[-1]}, line {issue.row})" if issue.row else ""
            if found_name.group(2).lower() == "onset":
                given[level] = _TIMED.sub(f"Def/{name}", hed, count=1)
                continue
            del given[level]
            notes.append(DroppedTags(column, level, (), reason=(
                f"it ends {name}, which the sidecar cannot start and end: in the events files an end comes at the "
                f"time of its start or without one{where}"),
                fix="give each end code a later onset than its start code in the events files"))
    annotations = {c: v for c, v in annotations.items() if v}
    logger.warning("Onset/Offset of %s left out: the events files' timing fails hedtools (%s)", sorted(names),
                   found[0].message.splitlines()[0][:200])
    return dataclasses.replace(composition, annotations=annotations, notes=notes)


_TIMED = re.compile(r"\(\s*Def/([^\s,()/]+)\s*,\s*(Onset|Offset)\s*\)", re.IGNORECASE)


def _own_faults(found: list[SidecarIssue], composition: Composition) -> set[Place]:
    """The (column, level) pairs whose composed HED hedtools refuses on its own (in the sidecar, not in a row),
    when every error is such: those levels, not their whole columns, go back to their own HED."""
    places = {(i.column, i.level) for i in found if i.source == SIDECAR and i.column and i.level is not None
              and isinstance(composition.annotations.get(i.column), Mapping)
              and i.level in composition.annotations[i.column]}
    return places if len(places) == len({(i.column, i.level) for i in found}) else set()


def _plain_levels(composition: Repaired, plain: Composition, places: set[Place]) -> Repaired:
    """*composition* with the levels *places* back to their own HED (left out, noted, where they have none)."""
    annotations = {c: dict(v) if isinstance(v, Mapping) else v for c, v in composition.annotations.items()}
    notes = list(composition.notes)
    for column, level in sorted(places, key=lambda p: (p[0], p[1] or "")):
        own = plain.annotations.get(column)
        if isinstance(own, Mapping) and own.get(level):
            annotations[column][level] = own[level]
        else:
            annotations[column].pop(level, None)
            notes.append(_note(column, level, "no valid HED of its own"))
    return dataclasses.replace(composition, annotations={c: v for c, v in annotations.items() if v}, notes=notes)


def _plain_where_blamed(composition: Repaired, plain: Composition, found: list[SidecarIssue]) -> Repaired:
    """*composition* with the columns *found* blames back to the plain HED; all of it where none is blamed or
    the definitions entry is."""
    blamed = {column for column, _ in _blamed(found, composition)}
    if blamed and not any(issue.column == composition.entry for issue in found):
        composition = _with_plain(composition, plain, blamed)
        composition.fallback = (f"errors in column(s) {', '.join(sorted(blamed))} (the other columns stay "
                                f"composed): {found[0].message.splitlines()[0][:200]}")
        return composition
    return dataclasses.replace(composition, annotations=plain.annotations, notes=list(plain.notes),
                               definitions=None, fallback=found[0].message.splitlines()[0][:300])


def _bare(task: TaskInventory, composition: Repaired, foreign: set[str]) -> None:
    """The uploaded sidecar keys in *foreign* lose their HED, each with a note."""
    logger.warning("task %s: the uploaded HED of %s fails validation; left out", task.task, sorted(foreign))
    composition.bare = tuple(sorted({*composition.bare, *foreign}))
    composition.notes = [*composition.notes, *(DroppedTags(key, None, (), reason="the uploaded HED of this "
                                                           "entry fails validation; it is left out")
                                               for key in sorted(foreign))]
