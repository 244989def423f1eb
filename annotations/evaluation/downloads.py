"""The evaluation table as a download: CSV (one row per configuration, every figure in its own column) or JSON
(the API's body). Text cells pass the formula guard of every table the app writes (:mod:`bidsdata.cells`)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header

from annotations.evaluation.selectors import Table
from annotations.evaluation.table import ModelRow, TagFigures
from bidsdata.cells import safe_row


def _number(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _tags(tags: TagFigures) -> list[str]:
    low, high = (tags.interval.low, tags.interval.high) if tags.interval else (None, None)
    return [str(tags.n), _number(tags.precision), _number(tags.recall), _number(tags.f1), _number(low), _number(high)]


HEADER = ["model", "label", "provider", "constrained", "constraint", "prompt_version", "schema_version", "runs",
          "first_attempt_valid", "final_valid", "mean_attempts",
          *(f"{prefix}_{name}" for prefix in ("tags", "tags_expanded", "tags_without_definition_rows")
            for name in ("n", "precision", "recall", "f1", "f1_low", "f1_high")),
          "reviewed", "accepted", "accepted_low", "accepted_high", "corrected", "rejected", "rated", "mean_rating",
          "judged", "faithful", "mean_tokens", "total_tokens", "mean_cost_usd", "total_cost_usd", "latency_p50_s",
          "latency_p95_s", "failed_runs", "timeouts", "invalid_replies", "refusals"]


def csv_row(row: ModelRow) -> list[Any]:
    c = row.configuration
    accepted = row.acceptance_interval
    return [c.model, c.label, c.provider, "" if c.constrained is None else str(c.constrained).lower(), c.constraint,
            c.prompt_version, c.schema_version, row.runs, _number(row.first_valid), _number(row.final_valid),
            _number(row.mean_attempts, 3), *_tags(row.tags), *_tags(row.tags_expanded), *_tags(row.tags_referee),
            row.reviewed, _number(row.accepted), _number(accepted.low if accepted else None),
            _number(accepted.high if accepted else None), _number(row.corrected), _number(row.rejected), row.rated,
            _number(row.mean_rating, 3), row.judged, _number(row.faithful), _number(row.mean_tokens, 1),
            row.total_tokens, _number(row.mean_cost, 6), _number(row.total_cost, 6), _number(row.latency_p50, 3),
            _number(row.latency_p95, 3), row.failed, row.timeouts, row.invalid_replies, row.refusals]


def table_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for row in table.rows:
        writer.writerow(safe_row(csv_row(row)))
    return out.getvalue()


def download(table: Table, fmt: str) -> HttpResponse:
    """The table as an attachment: ``csv`` or ``json``."""
    if fmt == "csv":
        response = HttpResponse(table_csv(table), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(json.dumps(table.as_dict(), indent=2), content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(True, f"evaluation.{fmt}")
    response["X-Content-Type-Options"] = "nosniff"
    return response
