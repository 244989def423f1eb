"""What a sidecar puts on a task's events: sample assembled rows with hedtools' verdict, and figures.

:func:`row_preview` assembles the first rows of the first events file(s) with the sidecar (hedtools'
``TabularInput``; definitions not expanded) and gives each row the verdict of hedtools' ``EventsChecker``:
one event type per event group, a task role, a sensory modality on sensory events, an action on agent
actions. A failing row names the (column, level) pairs that give it HED, so a page can link each to the
level to fix. hedtools merges the rows of one onset into one event; a row merged into a failing event
fails with it (``merged_into`` names the event's first line).

:func:`quality` gives the figures the referee (``score_events.py``) computes, by its definitions:

* ``rows_ok``: rows that get any HED (definitions expanded; Description, Def, Def-expand, Definition
  aside) and whose line hedtools' EventsChecker reports nothing for (``ec_line``), over every row a file
  could be assembled for; a file hedtools cannot check (onsets out of order) passes no row.
* ``distinct``: categorical levels whose expanded HED (values and ``{column}`` references kept) no other
  level of the same column has, over the levels of columns with more than one level with HED.
* ``factors``: the condition variables hedtools' ``HedTypeManager`` finds (``Condition-variable`` type).
* ``vague``: categorical levels with HED whose meaning is not in it: every tag is an event type, a task role,
  a modality or a name (``Label``, ``ID``, ``Description``, ``Parameter-label``), or what is left besides such
  tags another level of the column has too (told apart only by names). A valid sidecar of such levels is valid
  HED that says little: the verdict counts them beside validity (they need a description).

Both are bounded: the preview reads rows until it has enough, :func:`quality` every row of at most
``max_files`` files (the first, sorted by path), taking no further file once ``max_rows`` rows are in.
Pure: no Django.
"""

from __future__ import annotations

import io
import json
import logging
import re
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from bidsdata import delays
from bidsdata.schemas import load_schema
from bidsdata.tsv import NA_VALUES, onset_groups, rows, same_onset

logger = logging.getLogger(__name__)

PREVIEW_ROWS = 12
MAX_FILES = 20
MAX_ROWS = 20_000
"""Files are examined whole, in path order, until this many rows (or ``MAX_FILES`` files) are in: hedtools
parses each row's HED several times, some thousands of rows a second."""
SKIP_TAGS = frozenset({"description", "def-expand", "definition", "def"})
NAME_TAGS = frozenset({"label", "id", "description", "parameter-label"})
"""Tags whose value is a name the annotator copied, not a meaning."""
GENERIC_BRANCHES = frozenset({"task-event-role", "sensory-presentation"})
"""Beside the event types (``Event``'s branch), what every event of its kind says: its role and modality."""
_REF = re.compile(r"\{[^}]*\}")
CHECKS = {
    "MISSING_EVENT_TYPE": "no event type (Sensory-event, Agent-action...)",
    "IMPROPER_EVENT_GROUPS": "several event types not in groups of their own",
    "MISSING_TASK_ROLE": "no task role (Experimental-stimulus, Participant-response...)",
    "MISSING_SENSORY_PRESENTATION": "a sensory event without its modality (Visual-presentation...)",
    "MISSING_ACTION_TAG": "an agent action without the action (Press...)",
    "AMBIGUOUS_TAG_GROUPING": "tags that cannot be told which event they belong to",
    "NOT_CHECKED": "hedtools could not check this file",
    "NO_HED": "no HED",
}
"""What each EventsChecker code means, in a few words for a page."""


@dataclass(frozen=True)
class RowIssue:
    code: str
    message: str

    @property
    def check(self) -> str:
        return CHECKS.get(self.code, self.code.replace("_", " ").lower())


@dataclass
class PreviewRow:
    """One assembled events row: where it is, its values, its HED and hedtools' verdict."""

    file: str
    line: int  # the file's line; the header is line 1
    values: list[tuple[str, str]]
    hed: str
    issues: list[RowIssue] = field(default_factory=list)
    sources: list[tuple[str, str | None]] = field(default_factory=list)  # failing rows: who gives them HED
    merged_into: int | None = None

    @property
    def ok(self) -> bool:
        return not self.issues

    @property
    def onset(self) -> str:
        return dict(self.values).get("onset", "")


@dataclass
class Quality:
    """The referee's figures for one sidecar over (at most ``max_files`` of) its events files."""

    files: int = 0
    files_total: int = 0
    rows: int = 0
    rows_ok: int = 0
    rows_hed: int = 0
    levels: int = 0
    levels_distinct: int = 0
    factors: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # files hedtools could not check
    vague: list[tuple[str, str]] = field(default_factory=list)  # (column, level): only generic tags or names

    @property
    def rows_ok_share(self) -> float:
        return self.rows_ok / self.rows if self.rows else 0.0

    @property
    def distinct_share(self) -> float:
        return self.levels_distinct / self.levels if self.levels else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rows_ok_share": round(self.rows_ok_share, 4),
                "distinct_share": round(self.distinct_share, 4)}


def _sidecar(sidecar: dict[str, Any]) -> Any:
    from hed.models import Sidecar

    return Sidecar(io.StringIO(json.dumps(sidecar)), name="events.json")


def _tabular(text: str, side: Any, name: str) -> Any:
    """hedtools' parse of one events text with the sidecar, built once and shared by the assembly,
    ``EventsChecker`` and ``EventManager``: each assembles the rows afresh (``series_a`` is computed on every
    read, and the manager's ``shrink_defs`` edits only that fresh series), and assembling leaves the table's
    values as read (it types the sidecar's categorical columns as pandas categories, whose values and numeric
    reading stay the same), so a shared parse gives the answers a fresh one would."""
    from hed.models import TabularInput

    return TabularInput(io.StringIO(text), sidecar=side, name=name)


def _refusal(exc: Exception) -> str:
    """Why hedtools could not check a file, in one line."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _manager(schema: Any, tab: Any) -> Any:
    """hedtools' ``EventManager`` of one parsed events file: its rows assembled, Delay split and parsed once.

    ``EventsChecker`` and ``HedTypeManager`` each built their own from the same file; both only read it (each
    unfolds the context into new HED strings, and a Def is replaced by a copy of its definition), so one
    manager per file gives both the answers their own would."""
    from hed.tools.analysis.event_manager import EventManager

    return EventManager(tab, schema)


def _events_checker(schema: Any, manager: Any, name: str) -> Any:
    """hedtools' ``EventsChecker`` of *manager*'s file, set up as its ``_initialize`` does from that manager
    instead of a manager of its own."""
    from hed.tools.analysis.event_checker import EventsChecker
    from hed.tools.analysis.hed_tag_manager import HedTagManager

    checker = EventsChecker.__new__(EventsChecker)
    checker._schema, checker.input_data, checker.name = schema, manager.input_data, name
    tags = HedTagManager(manager, remove_types=EventsChecker.REMOVE_TYPES)
    checker.hed_objs = tags.get_hed_objs(include_context=False, replace_defs=True)
    checker.onsets, checker.original_index = manager.onsets, manager.original_index
    return checker


def _checked(schema: Any, tab: Any, name: str, manager: Any = None) -> tuple[dict[int, list[RowIssue]], str | None]:
    """EventsChecker's issues by row index (``ec_line``), or why hedtools could not check the file; *manager*:
    the file's ``EventManager`` when the caller built it (:func:`_manager`), else one is built here."""
    try:
        found = _events_checker(schema, _manager(schema, tab) if manager is None else manager,
                                name).validate_event_tags()
    except Exception as exc:  # hedtools refuses the file (onsets not in order, unmatched offsets)
        logger.info("events checker cannot check %s: %s", name, exc)
        return {}, _refusal(exc)
    issues: dict[int, list[RowIssue]] = {}
    for issue in found:
        line = issue.get("ec_line")
        if line is not None:
            issues.setdefault(int(line), []).append(RowIssue(str(issue.get("code")),
                                                             str(issue.get("message", "")).strip()))
    return issues, None


def event_starts(onsets: list[str]) -> list[int]:
    """For each row, the first row of the event hedtools merges it into (:func:`bidsdata.tsv.onset_groups`);
    a row without a numeric onset stands alone."""
    starts = list(range(len(onsets)))
    for group in onset_groups(onsets):
        for index in group:
            starts[index] = group[0]
    return starts


def _sources(sidecar: Mapping[str, Any], header: list[str], cells: list[str]) -> list[tuple[str, str | None]]:
    """The (column, level) pairs whose sidecar HED the row gets; ``None`` for a value column's template."""
    found: list[tuple[str, str | None]] = []
    for column, value in zip(header, cells, strict=False):
        entry = sidecar.get(column)
        hed = entry.get("HED") if isinstance(entry, dict) else None
        if isinstance(hed, dict) and value in hed:
            found.append((column, value))
        elif isinstance(hed, str) and value not in NA_VALUES:
            found.append((column, None))
    return found


def _head(text: str, limit: int) -> tuple[list[str], list[list[str]]]:
    """The header and the first *limit* rows, and the rows after them that share the last one's onset (hedtools
    makes them one event): enough to check those rows, however long the file."""
    table = rows(text)
    header = next(table, [])
    onset = header.index("onset") if "onset" in header else None
    cells: list[list[str]] = []
    for row in table:
        if len(cells) >= limit and (onset is None or not same_onset(row[onset], cells[-1][onset])):
            break
        cells.append(row)
    return header, cells


def _file_preview(sidecar: dict[str, Any], schema: Any, side: Any, path: str, text: str,
                  limit: int) -> list[PreviewRow]:
    header, cells = _head(text, limit)
    head = "\n".join("\t".join(row) for row in [header, *cells]) + "\n"
    onset = header.index("onset") if "onset" in header else None
    starts = event_starts([r[onset] if onset is not None else "" for r in cells])
    try:
        tab = _tabular(head, side, path)
    except Exception as exc:  # a text hedtools cannot read: neither assembled nor checked
        logger.info("cannot assemble or check %s: %s", path, exc)
        assembled, issues, refused = [], {}, _refusal(exc)
    else:
        try:
            assembled = [str(s) for s in tab.series_a]
        except Exception as exc:  # a sidecar hedtools cannot assemble this file with
            logger.info("cannot assemble %s: %s", path, exc)
            assembled = []
        issues, refused = _checked(schema, tab, path)
    preview = []
    for index, row in enumerate(cells[:limit]):
        hed = assembled[index] if index < len(assembled) else ""
        hed = "" if hed.strip() in NA_VALUES else hed
        first = starts[index]
        found = list(issues.get(first, []))
        if refused is not None:
            found = [RowIssue("NOT_CHECKED", refused)]
        elif not hed:
            found = [RowIssue("NO_HED", "no column gives this row HED")]
        item = PreviewRow(file=path, line=index + 2, values=list(zip(header, row, strict=False)), hed=hed,
                          issues=found, merged_into=first + 2 if first != index else None)
        if found and refused is None:  # the rows of its event give it HED
            for other in range(first, len(cells)):
                if starts[other] == first:
                    item.sources += [p for p in _sources(sidecar, header, cells[other]) if p not in item.sources]
        preview.append(item)
    return preview


def row_preview(sidecar: dict[str, Any], events: Mapping[str, str], version: str | list[str] | None, *,
                limit: int = PREVIEW_ROWS) -> list[PreviewRow]:
    """The first *limit* assembled rows of the events files (in path order) with hedtools' verdicts."""
    delays.install()
    schema, side = load_schema(version), _sidecar(sidecar)
    preview: list[PreviewRow] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted(events):
            if len(preview) >= limit:
                break
            preview += _file_preview(sidecar, schema, side, path, events[path], limit - len(preview))
    return preview


def _row_tags(text: Any, schema: Any, defs: Any) -> set[str]:
    from hed.models import HedString

    if not isinstance(text, str) or not text.strip() or text == "n/a":
        return set()
    hed = HedString(text, schema, def_dict=defs)
    hed.expand_defs()
    return {(t.short_base_tag or t.org_base_tag or str(t)).strip().lower() for t in hed.get_all_tags()} - SKIP_TAGS


def _meaningful(tag: Any) -> bool:
    """Whether *tag* says what happened: not an event type, a task role, a modality or a name."""
    terms = tuple(tag.tag_terms or ())
    if not terms:
        return True
    return terms[0] != "event" and not GENERIC_BRANCHES & set(terms) and terms[-1] not in NAME_TAGS


def vague_levels(sidecar: dict[str, Any], schema: Any, defs: Any) -> list[tuple[str, str]]:
    """(column, level) of the categorical levels with HED that carry only generic tags (event type, role,
    modality, names) or are told apart from another level of their column only by names (:data:`NAME_TAGS`)."""
    from hed.models import HedString

    found: list[tuple[str, str]] = []
    for column, levels in _hed_levels(sidecar).items():
        meanings: dict[str, frozenset[str]] = {}
        for level, text in levels.items():
            parsed = HedString(_REF.sub("", str(text)), schema, def_dict=defs)
            parsed.expand_defs()
            meanings[level] = frozenset(str(t).lower() for t in parsed.get_all_tags() if _meaningful(t)) | set(
                _REF.findall(str(text)))
        seen = list(meanings.values())
        found += [(column, level) for level, meaning in meanings.items() if not meaning or seen.count(meaning) > 1]
    return found


def _hed_levels(sidecar: dict[str, Any]) -> dict[str, dict[str, str]]:
    """column -> level -> HED, for the categorical columns of *sidecar* (definition entries aside)."""
    out: dict[str, dict[str, str]] = {}
    for column, entry in sidecar.items():
        hed = entry.get("HED") if isinstance(entry, dict) else None
        if not isinstance(hed, dict) or not isinstance(entry.get("Levels", hed), dict):
            continue
        if column.startswith("hed_def") or all("Definition/" in str(v) for v in hed.values()):
            continue
        out[column] = {str(level): str(text) for level, text in hed.items() if str(text).strip()}
    return out


def _level_tags(sidecar: dict[str, Any], schema: Any, defs: Any) -> dict[str, dict[str, frozenset[str]]]:
    """column -> level -> its expanded tags with values, for columns with more than one level with HED."""
    from hed.models import HedString

    out: dict[str, dict[str, frozenset[str]]] = {}
    for column, entry in sidecar.items():
        hed = entry.get("HED") if isinstance(entry, dict) else None
        if not isinstance(hed, dict) or not isinstance(entry.get("Levels", hed), dict):
            continue
        if column.startswith("hed_def") or all("Definition/" in str(v) for v in hed.values()):
            continue
        levels: dict[str, frozenset[str]] = {}
        for level, text in hed.items():
            parsed = HedString(_REF.sub("", str(text)), schema, def_dict=defs)
            parsed.expand_defs()
            tags = frozenset(str(t).lower() for t in parsed.get_all_tags()) | set(_REF.findall(str(text)))
            if tags:
                levels[level] = tags
        if len(levels) > 1:
            out[column] = levels
    return out


def _examined(events: Mapping[str, str], max_files: int, max_rows: int) -> list[str]:
    paths: list[str] = []
    lines = 0
    for path in sorted(events)[:max(0, max_files)]:
        if paths and lines >= max_rows:
            break
        paths.append(path)
        lines += events[path].count("\n")
    return paths


def quality(sidecar: dict[str, Any], events: Mapping[str, str], version: str | list[str] | None, *,
            max_files: int = MAX_FILES, max_rows: int = MAX_ROWS) -> Quality:
    """The referee's figures for *sidecar* over every row of the first *events* files (at most *max_files*,
    none more once *max_rows* rows are in)."""
    from hed.tools.analysis.hed_type_manager import HedTypeManager

    delays.install()
    schema, side = load_schema(version), _sidecar(sidecar)
    paths = _examined(events, max_files, max_rows)
    result = Quality(files=len(paths), files_total=len(events))
    factors: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            defs = side.get_def_dict(schema)
            for levels in _level_tags(sidecar, schema, defs).values():
                seen = list(levels.values())
                result.levels += len(seen)
                result.levels_distinct += sum(1 for tags in seen if seen.count(tags) == 1)
            result.vague = vague_levels(sidecar, schema, defs)
        except Exception as exc:  # a sidecar hedtools cannot read: no level counts
            logger.info("cannot read the sidecar's levels: %s", exc)
        for path in paths:
            try:
                tab = _tabular(events[path], side, path)
                file_defs = tab.get_def_dict(schema)
                # Rows of one kind assemble to one string: each distinct string of the file is parsed once.
                parsed: dict[Any, set[str]] = {}
                tags = [parsed[s] if s in parsed else parsed.setdefault(s, _row_tags(s, schema, file_defs))
                        for s in tab.series_a]
            except Exception as exc:  # as the referee: a file it cannot assemble has no rows
                logger.info("cannot assemble %s: %s", path, exc)
                result.unchecked.append(path)
                continue
            result.rows += len(tags)
            result.rows_hed += sum(1 for t in tags if t)
            try:
                manager = _manager(schema, tab)  # the checker's and the condition variables' (one per file)
            except Exception as exc:  # hedtools refuses the file (onsets not in order, unmatched offsets)
                logger.info("events checker cannot check %s: %s", path, exc)
                result.unchecked.append(path)
                continue
            issues, refused = _checked(schema, tab, path, manager)
            if refused is not None:
                result.unchecked.append(path)
                continue
            result.rows_ok += sum(1 for i, t in enumerate(tags) if t and i not in issues)
            try:
                types = HedTypeManager(manager)
                types.add_type("Condition-variable")
                found = types.get_type("condition-variable")
                factors.update(found.get_type_value_names() if found is not None else [])
            except Exception as exc:  # no factors from a file hedtools cannot order
                logger.info("no condition variables from %s: %s", path, exc)
    result.factors = sorted(factors)
    return result
