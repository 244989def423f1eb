"""BIDS events.json sidecars from sessions assigned to a column and a level.

Each assigned column becomes a categorical column of the sidecar: its ``Levels`` describe
each level in words (the session's description) and its ``HED`` annotates it (the session's
final annotation).  The newest session of a level wins; a level whose annotation does not
validate is left out rather than making the whole sidecar fail hedtools' validation.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from annotations.exports.keyset import keyset_pages
from annotations.models import AnnotationSession
from annotations.review.services import check_annotation

logger = logging.getLogger(__name__)

PAGE_SIZE = 2000


@dataclass
class BidsSidecar:
    data: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    schema_versions: set[str] = field(default_factory=set)

    def to_json(self) -> str:
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"


def build_sidecar(qs: QuerySet[AnnotationSession]) -> BidsSidecar:
    """The sidecar of every session of *qs* assigned to a column and a level."""
    result = BidsSidecar()
    assigned = qs.exclude(bids_column="").exclude(bids_level="").exclude(final_annotation="")
    fields = ("bids_column", "bids_level", "description", "final_annotation", "schema_version", "options")
    for page in keyset_pages(assigned, PAGE_SIZE, *fields):
        for row in page:
            column = result.data.setdefault(row["bids_column"], {})
            levels = column.setdefault("Levels", {})
            if row["bids_level"] in levels:
                continue  # newest first: a newer session already annotates this level
            no_extend = bool((row["options"] or {}).get("no_extend", False))
            errors = [i for i in check_annotation(row["final_annotation"], row["schema_version"],
                                                  no_extend=no_extend) if i.is_error]
            if errors:
                result.skipped.append({"session_id": str(row["id"]), "column": row["bids_column"],
                                       "level": row["bids_level"], "reason": errors[0].message})
                continue
            levels[row["bids_level"]] = " ".join(row["description"].split())
            column.setdefault("HED", {})[row["bids_level"]] = row["final_annotation"]
            result.schema_versions.add(row["schema_version"])
    for name in list(result.data):
        column = result.data[name]
        if not column.get("Levels"):
            del result.data[name]
            continue
        # Stable, readable output: levels sorted, the description first.
        result.data[name] = {"Description": f"Event category in column '{name}', annotated with HEDit.",
                             "Levels": dict(sorted(column["Levels"].items())),
                             "HED": dict(sorted(column["HED"].items()))}
    for item in result.skipped:
        logger.warning("BIDS export left out session %s (%s=%s): %s", item["session_id"], item["column"],
                       item["level"], item["reason"])
    return result


def stream_bids(qs: QuerySet[AnnotationSession]) -> Iterator[str]:
    # One JSON document: built whole (it has one entry per level, not per session), then sent.
    yield build_sidecar(qs).to_json()


def validate_sidecar(data: dict[str, Any], schema_version: str) -> list[dict[str, Any]]:
    """hedtools' issues with *data* as an events.json sidecar under *schema_version*."""
    from hed.models import Sidecar

    from agents.schema import get_schema

    sidecar = Sidecar(io.StringIO(json.dumps(data)), name="events.json")
    return sidecar.validate(get_schema(schema_version))
