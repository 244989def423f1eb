"""Keep assembled rows valid: a tag two columns give the same event must appear once.

hedtools assembles an event's HED from every column of its row and refuses a top-level tag or group
that occurs twice (TAG_EXPRESSION_REPEATED). Levels annotated one by one often repeat the event's
basics ("Sensory-event, Visual-presentation") in several columns. The event column (``event_type``,
``trial_type``... else the first categorical column) keeps them; later columns drop what an earlier
column of the same row already gives: its HED becomes one group, as curators write secondary columns,
or, where even that group would repeat, loses the repeated items. A level left with nothing says nothing
its row does not say already: it is left out of the sidecar's HED and reported, so the user can describe
what sets it apart.

An assembled event also carries one event type (a tag under ``Event`` in the schema: Sensory-event,
Agent-action...). Levels annotated alone often open with one even in a modifier column (a task role, a
condition). Where the rows of such a level already get an event type from the column that gives them (the
one whose levels most often carry an event type), the level's own event-type tags are left out and
reported; the rest of its HED (roles, attributes, modality) stays. Where no other column gives one, it keeps
them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.hedstring import parse_groups, top_level_items
from bidsdata import tsv
from bidsdata.columns import names_event_type

if TYPE_CHECKING:
    from hed.models import HedGroup

# Characters a HED value cannot hold: a value column whose values have them cannot use a # template.
_NOT_IN_VALUES = re.compile(r"[,\[\]{}]")


@dataclass(frozen=True)
class DroppedTags:
    """Top-level items left out of one level's HED in the sidecar, and the column that gives them."""

    column: str
    level: str | None  # None: a value column's template
    items: tuple[str, ...]
    redundant: bool = False  # every item was given by another column: the level has no HED of its own
    reason: str = ""
    fix: str = ""  # what the lab must change in its data for the level to keep its HED ("" where nothing)


def _canonical(node: Any) -> str:
    if isinstance(node, str):
        return re.sub(r"\s+", "", node).lower()
    return "(" + ",".join(sorted(_canonical(child) for child in node)) + ")"


@functools.lru_cache(maxsize=4096)
def repeat_key(item: str) -> str:
    """What makes two items "the same" for hedtools' repeat check: case, spacing and order in groups aside.

    Remembered: every row of every events file asks again for the same few dozen items."""
    return ",".join(sorted(_canonical(node) for node in parse_groups(item)))


def event_column(columns: Iterable[str]) -> str | None:
    """The column that carries the event's type, by the usual BIDS names; else the first one."""
    names = list(columns)
    return next((c for c in names if names_event_type(c)), names[0] if names else None)


def column_order(columns: Iterable[str]) -> list[str]:
    names = list(columns)
    first = event_column(names)
    return ([first] if first else []) + [c for c in names if c != first]


Events = list[list[dict[str, str]]]
"""Each assembled event's rows (:func:`assembled_events`)."""


def assembled_events(events: Mapping[str, str]) -> Events:
    """The rows hedtools assembles into one event: those of a file with the same onset, in file order.

    Read once per public call here (through :func:`.tsv.read`, the one events reader) and handed to every
    check, which only reads them."""
    once = bool(tsv.glitch_lines(events))  # a row written twice at one onset, rarely: read once
    return [group for text in events.values() for group in tsv.by_onset(tsv.read(text), once=once)]


Forms = dict[tuple[str, str], list[str]]


def _repeats(forms: Forms, templates: Mapping[str, str], order: list[str], grouped: Events,
             ) -> tuple[dict[tuple[str, str], set[str]], set[tuple[str, str]]]:
    """Items each level repeats from an earlier column of the same event; levels that occur twice at one onset."""
    drops: dict[tuple[str, str], set[str]] = {}
    twice: set[tuple[str, str]] = set()
    # A template or a level gives every row it is on the same items: their keys are computed once per call
    # here, not once per row.
    template_keys = {column: [repeat_key(item) for item in top_level_items(text)]
                     for column, text in templates.items()}
    form_keys = {source: [repeat_key(item) for item in items] for source, items in forms.items()}
    for rows in grouped:
        seen: dict[str, tuple[str, str | None]] = {}  # item -> the (column, level) that gave it first
        for row in rows:
            for column in order:
                if column in template_keys:
                    for key in template_keys[column]:
                        seen.setdefault(key, (column, None))
                    continue
                level = row.get(column)
                if level is None or (column, level) not in forms:
                    continue
                if any(r is not row and r.get(column) == level for r in rows):
                    twice.add((column, level))
                for key in form_keys[(column, level)]:
                    if seen.setdefault(key, (column, level)) != (column, level):
                        drops.setdefault((column, level), set()).add(key)
    return drops, twice


def drop_repeated(annotations: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                  columns: Iterable[str], schema_version: str | list[str] | None = None,
                  ) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """*annotations* (column -> level -> HED, or column -> template) without repeats across an event's columns.

    *columns* is the sidecar's column order; the event column is taken first. A later level that repeats
    an earlier column's item becomes one group (as curators write secondary columns); where even the group
    would repeat, it drops the repeated items instead. Templates (value columns) are never changed.
    First, a level whose rows already get an event type from another column loses its own event-type
    tags (see :func:`single_event_type`).
    """
    columns = list(columns)
    grouped = assembled_events(events)
    annotations, notes = _usable_templates(annotations, grouped)
    annotations, typed = _single_event_type(annotations, grouped, columns, schema_version)
    notes += typed
    order = [c for c in column_order(columns) if c in annotations]
    templates = {c: t for c, t in annotations.items() if isinstance(t, str)}
    items: Forms = {(c, lv): top_level_items(h) for c in order if isinstance(annotations[c], Mapping)
                    for lv, h in annotations[c].items()}
    drops, twice = _repeats(items, templates, order, grouped)
    forms = dict(items)
    for key in drops:
        if key not in twice and len(items[key]) > 1:
            forms[key] = ["(" + ", ".join(items[key]) + ")"]
    still, _ = _repeats(forms, templates, order, grouped)
    changed = set(drops) | twice
    if not changed:
        return dict(annotations), notes
    adjusted: dict[str, Mapping[str, str] | str] = {c: (dict(v) if isinstance(v, Mapping) else v)
                                                    for c, v in annotations.items()}
    for column, level in sorted(changed):
        level_map = adjusted[column]
        assert isinstance(level_map, dict)
        if (column, level) in twice:
            del level_map[level]
            notes.append(DroppedTags(column, level, tuple(items[(column, level)]), redundant=True,
                                     reason="two events at one onset share this level, and its HED would repeat "
                                            "itself"))
            continue
        if (column, level) not in still and forms[(column, level)] != items[(column, level)]:
            level_map[level] = forms[(column, level)][0]
            continue
        keys = drops[(column, level)]
        kept = [i for i in items[(column, level)] if repeat_key(i) not in keys]
        left_out = tuple(i for i in items[(column, level)] if repeat_key(i) in keys)
        if kept:
            level_map[level] = ", ".join(kept)
        else:
            del level_map[level]
        notes.append(DroppedTags(column, level, left_out, redundant=not kept,
                                 reason="" if kept else "it only repeats what another column of the same events "
                                 "says; describe what sets it apart and annotate it again"))
    return adjusted, notes


REPEATS_AT_ONSET = "two events at one onset share the value"
"""How a template's note begins when its only fault is a value two rows at one onset share: nested inside each
row's event (``{column}``) the value is said once per event, and the template can stay."""


def usable_templates(annotations: Mapping[str, Mapping[str, str] | str],
                      events: Mapping[str, str]) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """Leave out the templates no row can carry: values HED cannot hold, or one value twice at one onset."""
    return _usable_templates(annotations, assembled_events(events))


def _usable_templates(annotations: Mapping[str, Mapping[str, str] | str],
                      grouped: Events) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    templates = {c: t for c, t in annotations.items() if isinstance(t, str)}
    reasons: dict[str, str] = {}
    for rows in grouped:
        seen: set[tuple[str, str]] = set()
        for row in rows:
            for column in templates:
                value = row.get(column)
                if column in reasons or tsv.is_na(value):
                    continue
                if _NOT_IN_VALUES.search(value):
                    reasons[column] = f"its values hold characters a HED value cannot (such as {value!r})"
                elif (column, value) in seen:
                    reasons[column] = (f"{REPEATS_AT_ONSET} {value!r}, and the template would repeat the same tag "
                                       "(nested in each event it would not: no event holds every such row)")
                seen.add((column, value))
    kept = {c: v for c, v in annotations.items() if c not in reasons}
    return kept, [DroppedTags(c, None, (templates[c],), redundant=True, reason=f"no template: {r}")
                  for c, r in reasons.items()]


# ---------------------------------------------------------------------------------------------------------
# One event type per assembled event


@functools.cache
def _event_types_for(key: tuple[str, ...]) -> frozenset[str]:
    from bidsdata.schemas import load_schema

    schema = load_schema(list(key) if len(key) > 1 else key[0])
    if not hasattr(schema, "tags"):  # a schema group: the standard schema is the one without a prefix
        schema = schema.schema_for_namespace("") or load_schema(None)
    return frozenset(entry.short_tag_name.lower() for entry in schema.tags.values()
                     if entry.long_tag_name == "Event" or entry.long_tag_name.startswith("Event/"))


def _event_types(schema_version: str | list[str] | None) -> frozenset[str]:
    """Short names (lower case) of ``Event`` and every tag under it in the (standard) schema."""
    from bidsdata.schemas import version_key

    return _event_types_for(version_key(schema_version))


def _event_type_tags(hed: str, schema_version: str | list[str] | None) -> tuple[Any, list[Any]]:
    """*hed* parsed by hedtools, and its tags (at any depth) that name an event type."""
    from hed.models import HedString

    from bidsdata.schemas import load_schema

    types = _event_types(schema_version)
    parsed = HedString(hed, load_schema(schema_version))
    return parsed, [tag for tag in parsed.get_all_tags() if tag.short_base_tag.lower() in types]


def without_event_types(hed: str, schema_version: str | list[str] | None,
                         ) -> tuple[str, tuple[str, ...]]:
    """*hed* without its event-type tags (groups left empty go too), and the tags left out."""
    parsed, found = _event_type_tags(hed, schema_version)
    if not found:
        return hed, ()
    left_out = tuple(str(tag) for tag in found)
    parsed.remove(found)
    return _written(parsed), left_out


def _written(group: HedGroup) -> str:
    parts = []
    for child in group.children:
        parts.append(f"({_written(child)})" if getattr(child, "is_group", False) else str(child))
    return ", ".join(parts)


def single_event_type(annotations: Mapping[str, Mapping[str, str] | str], events: Mapping[str, str],
                      columns: Iterable[str], schema_version: str | list[str] | None = None,
                      ) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """*annotations* where a level whose events already get an event type elsewhere does not add its own.

    The column that gives an event its type is, among the columns whose level (or template) on that event
    carries an event-type tag, the one whose levels most often carry one (ties: the event column first,
    then sidecar order). A level of another column that carries an event type is "covered" on that event.
    A level covered on every event where it appears loses its event-type tags; the rest of its HED stays
    (a level left with nothing is left out, as repeating its row). On an event that a typed template (a
    response's Delay group) already makes several events, no level is covered. Templates are never changed.
    """
    return _single_event_type(annotations, assembled_events(events), columns, schema_version)


def _single_event_type(annotations: Mapping[str, Mapping[str, str] | str], grouped: Events,
                       columns: Iterable[str], schema_version: str | list[str] | None,
                       ) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    order = [c for c in column_order(columns) if c in annotations]
    order += [c for c in annotations if c not in order]
    hed_of = {(c, lv): h for c in order if isinstance(annotations[c], Mapping)
              for lv, h in annotations[c].items()}
    if not hed_of:
        return dict(annotations), []
    typing = _Typing.of(order, hed_of, {c: t for c, t in annotations.items() if isinstance(t, str)},
                        schema_version)
    stripped = _covered_everywhere(grouped, order, typing)
    if not stripped:
        return dict(annotations), []
    grouped_types = any(typing.has_type[k] and k not in stripped and any(
        item.startswith("(") and _event_type_tags(item, schema_version)[1] for item in top_level_items(h))
        for k, h in hed_of.items())
    return _without_own_types(annotations, hed_of, stripped, schema_version, events_grouped=grouped_types)


@dataclass(frozen=True)
class _Typing:
    """Which levels and templates carry an event type, and each column's rank as the giver of an event's type."""

    hed_of: Mapping[tuple[str, str], str]
    templates: Mapping[str, str]
    has_type: Mapping[tuple[str, str], bool]
    template_typed: frozenset[str]
    rank: Mapping[str, tuple[float, int]]

    @classmethod
    def of(cls, order: list[str], hed_of: Mapping[tuple[str, str], str], templates: Mapping[str, str],
           schema_version: str | list[str] | None) -> _Typing:
        def typed(hed: str) -> bool:
            return bool(_event_type_tags(hed, schema_version)[1])

        has_type = {key: typed(h) for key, h in hed_of.items()}
        template_typed = frozenset(c for c, t in templates.items() if typed(t))
        share: dict[str, float] = {}
        for c in order:
            if c in templates:
                share[c] = 1.0 if c in template_typed else 0.0
            else:
                keys = [k for k in hed_of if k[0] == c]
                share[c] = sum(has_type[k] for k in keys) / len(keys) if keys else 0.0
        rank = {c: (-share[c], i) for i, c in enumerate(order)}
        return cls(hed_of, templates, has_type, template_typed, rank)

    def typed_on(self, rows: list[dict[str, str]], order: list[str]) -> tuple[set[tuple[str, str]], set[str]]:
        """The typed levels present on one event, and the columns that give it an event type."""
        present: set[tuple[str, str]] = set()
        givers: set[str] = set()
        for row in rows:
            for c in order:
                value = row.get(c)
                if tsv.is_na(value):
                    continue
                if c in self.templates:
                    if c in self.template_typed:
                        givers.add(c)
                elif (c, value) in self.hed_of and self.has_type[(c, value)]:
                    present.add((c, value))
                    givers.add(c)
        return present, givers


def _covered_everywhere(grouped: Events, order: list[str], typing: _Typing) -> set[tuple[str, str]]:
    """The typed levels whose every event gets its type from another column."""
    covered: dict[tuple[str, str], bool] = {}  # level -> covered on every event where it appears so far
    for rows in grouped:
        present, givers = typing.typed_on(rows, order)
        if not present:
            continue
        giver = min(givers, key=typing.rank.__getitem__)
        # A typed template beside the giver (a response's Delay group) makes this event several events anyway:
        # hedtools then asks every top-level group for an event type, so no level here gives its own up.
        several = len(givers & typing.template_typed - {giver}) > 0
        for key in present:
            covered[key] = covered.get(key, True) and key[0] != giver and not several
    return {key for key, ok in covered.items() if ok}


def _opened(hed: str) -> str:
    """A lone group that lost its event type, as loose tags: beside events written as groups, a group is an
    event to hedtools' EventsChecker and needs a type of its own, while loose tags belong to the row's event.
    (Beside an event written as loose tags the row is one event, and the group keeps its tags together.)"""
    items = top_level_items(hed)
    if len(items) == 1 and items[0].startswith("(") and items[0].endswith(")"):
        return items[0][1:-1].strip()
    return hed


def _without_own_types(annotations: Mapping[str, Mapping[str, str] | str], hed_of: Mapping[tuple[str, str], str],
                       stripped: set[tuple[str, str]], schema_version: str | list[str] | None, *,
                       events_grouped: bool) -> tuple[dict[str, Mapping[str, str] | str], list[DroppedTags]]:
    """*annotations* with the *stripped* levels' event-type tags left out, each with a note; where the events are
    written as groups (*events_grouped*), a lone group left without a type is opened (:func:`_opened`)."""
    adjusted: dict[str, Mapping[str, str] | str] = {c: (dict(v) if isinstance(v, Mapping) else v)
                                                    for c, v in annotations.items()}
    notes = []
    for column, level in sorted(stripped):
        level_map = adjusted[column]
        assert isinstance(level_map, dict)
        kept, left_out = without_event_types(hed_of[(column, level)], schema_version)
        if not left_out:
            continue
        if events_grouped:
            kept = _opened(kept)
        if kept.strip():
            level_map[level] = kept
        else:
            del level_map[level]
        notes.append(DroppedTags(
            column, level, left_out, redundant=not kept.strip(),
            reason="its events already get their event type from another column; an event has one type"
                   + ("" if kept.strip() else ", and it said nothing else: describe what sets it apart")))
    return adjusted, notes
