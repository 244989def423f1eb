"""Design matrices and the design summary of a task, as hedtools' ``HedTypeManager`` finds them.

A type tag (``Condition-variable``, ``Task``, ``Time-block``) names the factors of a design: each definition
whose content holds ``Condition-variable/Cue-color`` is a level of the factor ``cue-color``, and every event
carrying its ``Def`` (directly, or through the context of an ``Onset``) is at that level. Per events file,
:func:`design_file` gives hedtools' ``get_factor_vectors`` (one column per level, one-hot, or one column per
factor, categorical) with each event's row in the file and its onset in front; :func:`design_summary` adds
every file's ``HedType`` summary into one ``HedTypeCounts`` per type (levels, events and files per level,
direct references) with the definitions' descriptions.

The events are hedtools' (see :mod:`.assembly`): a file's rows, plus one per ``Delay`` group. A file
hedtools refuses is named with the reason and has no matrix.

Pure: no Django.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agents.schema import HedVersion
from bidsdata import delays
from bidsdata.cells import safe_row
from bidsdata.schemas import load_schema
from bidsdata.usage.assembly import TYPE_TAGS, event_manager, hed_sidecar, refusal
from bidsdata.usage.sources import EventsSource

logger = logging.getLogger(__name__)

ENCODINGS = ("one-hot", "categorical")


class DesignError(ValueError):
    """A type or encoding hedtools does not know."""


def check_design(type_tag: str, encoding: str) -> str:
    """The type tag as hedtools names it; :class:`DesignError` for an unknown type or encoding."""
    known = {t.casefold(): t for t in TYPE_TAGS}
    if type_tag.casefold() not in known:
        raise DesignError(f"unknown type {type_tag!r}; choose one of: {', '.join(TYPE_TAGS)}")
    if encoding not in ENCODINGS:
        raise DesignError(f"unknown encoding {encoding!r}; choose one of: {', '.join(ENCODINGS)}")
    return known[type_tag.casefold()]


@dataclass
class DesignFile:
    """One events file's design matrix: ``row`` and ``onset`` then hedtools' factor columns, one row per event."""

    path: str
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    refused: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    """hedtools' ``HedType.get_summary()`` of this file (factor -> its figures)."""
    total_events: int = 0

    def tsv(self) -> str:
        """The matrix as a TSV text (every cell inert for spreadsheets)."""
        lines = ["\t".join(safe_row(self.columns))]
        lines += ["\t".join(safe_row("n/a" if v is None else v for v in row)) for row in self.rows]
        return "\n".join(lines) + "\n"


def _onset(value: Any) -> Any:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else round(number, 6)


def design_file(source: EventsSource, version: HedVersion | None, *, type_tag: str = "Condition-variable",
                encoding: str = "one-hot", sidecar: Any = None) -> DesignFile:
    """*source*'s design matrix for *type_tag* (``HedTypeManager.get_factor_vectors``) and type summary."""
    from hed.tools.analysis.hed_type_manager import HedTypeManager

    type_tag = check_design(type_tag, encoding)
    delays.install()
    schema = load_schema(version)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            side = sidecar if sidecar is not None else hed_sidecar(source.sidecar or {}, version)
            manager = event_manager(source.text or "", side, schema, source.path)
            types = HedTypeManager(manager)
            types.add_type(type_tag)
            vectors = types.get_factor_vectors(type_tag, factor_encoding=encoding)
            found = types.get_type(type_tag)
            summary = found.get_summary() if found is not None else {}
        except Exception as exc:  # hedtools refuses the file, or a categorical factor with two levels at once
            logger.info("no design for %s: %s", source.path, exc)
            return DesignFile(path=source.path, refused=refusal(exc))
    rows = [int(i) for i in manager.original_index] if manager.original_index is not None else []
    onsets = [_onset(v) for v in manager.onsets] if manager.onsets is not None else []
    columns = ["row", "onset"]
    values: list[list[Any]] = [[row, onset] for row, onset in zip(rows, onsets, strict=False)]
    if vectors is not None:
        columns += [str(c) for c in vectors.columns]
        for index, line in enumerate(vectors.itertuples(index=False)):
            values[index] += [v.item() if hasattr(v, "item") else v for v in line]
    return DesignFile(path=source.path, columns=columns, rows=values, summary=summary, total_events=len(rows))


def design_summary(task: str, files: Iterable[DesignFile], type_tag: str, sidecar: dict[str, Any] | None,
                   version: HedVersion | None) -> dict[str, Any]:
    """Every file's type summary added into hedtools' ``HedTypeCounts`` (levels, events and files per level,
    direct references), with the descriptions of *sidecar*'s definitions."""
    from hed.tools.analysis.hed_type_counts import HedTypeCounts
    from hed.tools.analysis.hed_type_defs import HedTypeDefs

    counts = HedTypeCounts(task, type_tag.casefold())
    refused: dict[str, str] = {}
    for found in files:
        if found.refused:
            refused[found.path] = found.refused
            continue
        counts.update_summary(found.summary, found.total_events, found.path)
    if sidecar is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                defs = hed_sidecar(sidecar, version).get_def_dict(load_schema(version))
                counts.add_descriptions(HedTypeDefs(defs, type_tag=type_tag))
            except Exception as exc:  # a sidecar hedtools cannot read: the figures without descriptions
                logger.info("no definitions' descriptions for %s: %s", task, exc)
    summary = counts.get_summary()
    summary["refused"] = refused
    return summary


def factor_table(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The design summary as rows of a table: one per factor level (or per factor referenced directly)."""
    rows: list[dict[str, Any]] = []
    for factor, details in sorted(summary.get("details", {}).items()):
        levels = details.get("level_counts") or {}
        for level, counts in sorted(levels.items()):
            rows.append({"factor": factor, "level": level, "events": counts.get("events", 0),
                         "files": counts.get("files", 0), "description": counts.get("description", ""),
                         "direct_references": None})
        if not levels or details.get("direct_references"):
            rows.append({"factor": factor, "level": None, "events": details.get("events", 0),
                         "files": len(details.get("files", [])), "description": "",
                         "direct_references": details.get("direct_references", 0)})
    return rows


def matrix_name(path: str) -> str:
    """The design matrix's file name for the events file at *path*: its name with ``_design`` for ``_events``."""
    name = path.rsplit("/", 1)[-1]
    return name[: -len("_events.tsv")] + "_design.tsv" if name.endswith("_events.tsv") else name + "_design.tsv"


__all__ = ["ENCODINGS", "DesignError", "DesignFile", "check_design", "condition_levels", "design_file",
           "design_summary", "factor_table", "matrix_name"]


def condition_levels(sidecar: dict[str, Any], version: HedVersion | None, type_tag: str = "Condition-variable"
                     ) -> dict[str, list[str]]:
    """The factors *sidecar*'s definitions declare with *type_tag*, each with its levels (definition names)."""
    from hed.tools.analysis.hed_type_defs import HedTypeDefs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            defs = hed_sidecar(sidecar, version).get_def_dict(load_schema(version))
            found = HedTypeDefs(defs, type_tag=type_tag).type_map
        except Exception as exc:  # a sidecar hedtools cannot read declares nothing
            logger.info("no %s definitions: %s", type_tag, exc)
            return {}
    return {str(factor): sorted(str(name) for name in names) for factor, names in sorted(found.items())}
