"""Rows at one onset are one event to hedtools: what one row says must not repeat what another row there says.

hedtools sorts an events file by onset and joins the HED of the rows that share one (``1``, ``1.0`` and
``1.000`` alike) into a single event string, then refuses any top-level tag or group in it that occurs twice
(TAG_EXPRESSION_REPEATED, "Repeated group"). Two rows at one onset with the same level of a column therefore
break validation whatever that level's HED is, and two levels whose HED opens the same way ("Sensory-event,
...") do too. :func:`without_onset_repeats` assembles each such event as hedtools does (``#`` filled in,
``{column}`` references expanded, referenced columns kept out of the top level) and, where an item repeats:

* a level (or template) another level of the event gave the item first becomes one group, as curators
  write a second event at one instant, so its items no longer stand alone at the top level;
* a level that is itself there twice (or that cannot become a group: it holds Onset, Offset, Duration or
  Delay, which must stay at the top level; or it is one group already, the same as the other's) is left out
  of the sidecar and reported with why, so the lab is asked; where the two rows are the same event twice
  (same onset, same values) the report is the data fix: remove one of the rows.

Every round leaves out or groups at least one level, so the rounds are bounded by twice the levels.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agents.hedstring import top_level_items
from bidsdata import tsv
from bidsdata.assembly import DroppedTags, repeat_key
from bidsdata.types import LevelAnnotations

Source = tuple[str, str | None]  # (column, level); level None: a value column's template

_REF = re.compile(r"\{([^{}]*)\}")
_TEMPORAL = re.compile(r"(?i)(?<![\w-])(onset|offset|inset|duration|delay)(?![\w-])")
_MAX_DEPTH = 8  # references within references: deeper than any sidecar nests (and cycles end here)


@dataclass(frozen=True)
class Repeat:
    """An item *source* adds to an event that an earlier row (or column) of the event gave already."""

    source: Source
    first: Source
    path: str
    rows: tuple[int, int]  # the two rows as hedtools numbers them (the header is row 1)
    onset: str
    same_values: bool  # the two rows hold the same value in every annotated column


def _tidy(text: str) -> str:
    """*text* with the commas and parentheses an empty reference leaves behind removed, as hedtools does."""
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\(\s*(?:,\s*)*\)", "", text)
        text = re.sub(r",\s*(?=,|\)|$)", "", text)
        text = re.sub(r"(^|\()\s*,", r"\1", text)
    return text.strip()


def _hed(annotations: LevelAnnotations, column: str, row: Mapping[str, str], depth: int = 0) -> str | None:
    """*column*'s HED on *row* as hedtools assembles it, or None where it gives none."""
    cell = row.get(column)
    given = annotations.get(column)
    if tsv.is_na(cell) or given is None or depth > _MAX_DEPTH:
        return None
    text = given.get(cell) if isinstance(given, Mapping) else given.replace("#", str(cell))
    if not text or not text.strip():
        return None
    if "{" in text:
        text = _tidy(_REF.sub(lambda m: _hed(annotations, m.group(1), row, depth + 1) or "", text))
    return text or None


@functools.lru_cache(maxsize=8192)
def _items(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((item, repeat_key(item)) for item in top_level_items(text))


def _texts(given: Any) -> list[Any]:
    """A column's HED strings: its levels' or its template."""
    return list(given.values()) if isinstance(given, Mapping) else [given]


def _referenced(annotations: LevelAnnotations) -> set[str]:
    """Columns some HED references as ``{column}``: hedtools puts them only where they are referenced."""
    found: set[str] = set()
    for given in annotations.values():
        for text in _texts(given):
            found.update(_REF.findall(str(text)))
    return found


def _source(annotations: LevelAnnotations, column: str, row: Mapping[str, str]) -> Source:
    return (column, row.get(column)) if isinstance(annotations.get(column), Mapping) else (column, None)


def repeats(annotations: LevelAnnotations, events: Mapping[str, str],
            order: list[str] | None = None) -> Iterator[Repeat]:
    """Every item a row at a shared onset repeats from the event's earlier rows (or its own earlier columns)."""
    referenced = _referenced(annotations)
    top = [c for c in (order or list(annotations)) if c in annotations and c not in referenced]
    # A column whose HED references no other column says the same on every row with the same cell: its HED
    # is filled in once per (column, cell), not once per row.
    plain = {c for c in top if not any("{" in str(t) for t in _texts(annotations[c]))}
    said: dict[tuple[str, str | None], str | None] = {}
    once = bool(tsv.glitch_lines(events))  # a row written twice at one onset, rarely: the data's, read once
    for path, text in events.items():
        records = tsv.read(text)
        index = {id(row): n for n, row in enumerate(records)}
        for rows in tsv.by_onset(records, once=once):
            if len(rows) < 2:
                continue
            first: dict[str, tuple[int, Source]] = {}
            for row in rows:
                at = index[id(row)]
                for column in top:
                    cell = row.get(column)
                    if column in plain and "{" not in str(cell):
                        if (column, cell) not in said:
                            said[(column, cell)] = _hed(annotations, column, row)
                        text_ = said[(column, cell)]
                    else:
                        text_ = _hed(annotations, column, row)
                    if text_ is None:
                        continue
                    source = _source(annotations, column, row)
                    for _, key in _items(text_):
                        seen = first.setdefault(key, (at, source))
                        if seen == (at, source):
                            continue  # the first time, or a level repeating its own item (its own error)
                        other = records[seen[0]]
                        yield Repeat(source, seen[1], path, (seen[0] + 2, at + 2), row.get("onset", ""),
                                     all(other.get(c) == row.get(c) for c in annotations))


def _groupable(text: str) -> bool:
    """Whether *text* can become one group: more than one item, or a bare tag, and nothing that must stay at the
    top level (a temporal tag)."""
    items = top_level_items(text)
    return bool(items) and not _TEMPORAL.search(text) and (len(items) > 1 or not items[0].startswith("("))


def _reason(repeat: Repeat) -> tuple[str, str]:
    """(why the level is left out, the lab's data fix or "")."""
    where = f"{repeat.path}, rows {repeat.rows[0]} and {repeat.rows[1]} at onset {repeat.onset}"
    if repeat.same_values:
        fix = (f"rows {repeat.rows[0]} and {repeat.rows[1]} of {repeat.path} are the same event twice (onset "
               f"{repeat.onset}, the same values): remove one of them")
        return (f"two rows at one onset are the same event twice ({where}), which hedtools reads as one event "
                f"with this level's HED repeated: {fix}, and the level keeps its HED"), fix
    return (f"it is in two rows at one onset ({where}), which hedtools reads as one event, so its HED would be "
            "there twice; say how the two rows differ, or give them different onsets"), ""


def without_onset_repeats(annotations: LevelAnnotations, events: Mapping[str, str], order: list[str] | None = None,
                          ) -> tuple[dict[str, Any], list[DroppedTags]]:
    """*annotations* whose events assembled from rows at one onset repeat no top-level item; the notes of
    what was left out (see the module docstring)."""
    adjusted: dict[str, Any] = {c: dict(v) if isinstance(v, Mapping) else v for c, v in annotations.items()}
    notes: list[DroppedTags] = []
    grouped: set[Source] = set()
    bound = 2 * sum(len(v) if isinstance(v, Mapping) else 1 for v in adjusted.values()) + 1
    for _ in range(bound):
        out: dict[Source, Repeat] = {}
        group: dict[Source, Repeat] = {}
        for repeat in repeats(adjusted, events, order):
            text = _text(adjusted, repeat.source)
            if repeat.source == repeat.first or repeat.source in grouped or text is None or not _groupable(text):
                out.setdefault(repeat.source, repeat)
            else:
                group.setdefault(repeat.source, repeat)
        if not out and not group:
            break
        for source in sorted(group.keys() - out.keys(), key=_order):
            _set(adjusted, source, "(" + str(_text(adjusted, source)) + ")")
            grouped.add(source)
        for source, repeat in sorted(out.items(), key=lambda kv: _order(kv[0])):
            text = _text(adjusted, source)
            _set(adjusted, source, None)
            if repeat.source == repeat.first:
                why, fix = _reason(repeat)
                notes.append(DroppedTags(source[0], source[1], (text or "",), reason=why, fix=fix))
            else:
                notes.append(DroppedTags(source[0], source[1], (text or "",), redundant=True,
                                         reason="at one onset another row's level says the same; an event has "
                                                "each item once, so describe what sets it apart"))
    return {c: v for c, v in adjusted.items() if v}, notes


def _order(source: Source) -> tuple[str, str]:
    return source[0], source[1] or ""


def _text(annotations: Mapping[str, Any], source: Source) -> str | None:
    given = annotations.get(source[0])
    if isinstance(given, Mapping):
        return given.get(source[1]) if source[1] is not None else None
    return given if source[1] is None else None


def _set(annotations: dict[str, Any], source: Source, text: str | None) -> None:
    column, level = source
    if level is None:
        if text is None:
            annotations.pop(column, None)
        else:
            annotations[column] = text
        return
    levels = annotations.get(column)
    if isinstance(levels, dict):
        if text is None:
            levels.pop(level, None)
        else:
            levels[level] = text
