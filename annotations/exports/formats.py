"""Export formats (CSV, JSONL): the filtered sessions, streamed as the chosen format."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db.models import QuerySet
from django.http import HttpRequest, QueryDict, StreamingHttpResponse
from django.utils.http import content_disposition_header

from annotations.errors import FieldError, RequestError
from annotations.exports.keyset import keyset_pages
from annotations.history.filters import filter_sessions
from annotations.models import AnnotationSession
from annotations.records import FLAT_COLUMNS, FLAT_FIELDS, export_record, flat_record
from annotations.selectors import visible_sessions, with_record_relations
from bidsdata.cells import safe_row

CSV_PAGE_SIZE = 2000


# Full records carry every LLM request and response: keep pages small.
JSONL_PAGE_SIZE = 100


# One row per session: the flat record (annotations.records), its cells made inert for spreadsheets
# (bidsdata.cells, the one guard of every table the app writes).
CSV_COLUMNS = FLAT_COLUMNS


# Query parameters of an export request that are not history filters.
_NOT_FILTERS = frozenset({"format", "page", "download", "csrfmiddlewaretoken"})


@dataclass(frozen=True)
class ExportFormat:
    name: str
    label: str
    content_type: str
    filename: str


FORMATS: dict[str, ExportFormat] = {
    "csv": ExportFormat("csv", "CSV, one row per session", "text/csv; charset=utf-8", "hedit-sessions.csv"),
    "jsonl": ExportFormat("jsonl", "JSONL, the full record of each session", "application/x-ndjson",
                          "hedit-sessions.jsonl"),
}


class ExportError(FieldError):
    """An export request that cannot be carried out; *field* names the input at fault."""


def check_format(value: Any) -> ExportFormat:
    fmt = FORMATS.get(str(value or "").strip().lower())
    if fmt is None:
        raise ExportError("format", f"unknown format {value!r}; use one of {', '.join(FORMATS)}")
    return fmt


def filter_params(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """The history-filter part of a request's parameters (a QueryDict stays one, for getlist)."""
    if isinstance(params, QueryDict):
        copy = params.copy()
        for key in _NOT_FILTERS:
            copy.pop(key, None)
        return copy
    return {k: v for k, v in params.items() if k not in _NOT_FILTERS}


class FilterError(RequestError):
    """History filter values that could not be used (a 400); *errors* maps each parameter to a message."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = dict(errors)

    def as_dict(self, default_field: str = "non_field_errors") -> dict[str, list[str]]:
        """Every parameter at fault with its message (the API's 400 body)."""
        return {name: [message] for name, message in self.errors.items()}


def sessions_for_export(user: Any, params: Mapping[str, Any]) -> QuerySet[AnnotationSession]:
    """What *user* may see, narrowed by the history filters in *params* (exactly as on history)."""
    return filtered(visible_sessions(user), params)


def filtered(qs: QuerySet[AnnotationSession], params: Mapping[str, Any]) -> QuerySet[AnnotationSession]:
    """*qs* narrowed by the history filters; raises :class:`FilterError` naming each bad value.

    An export with a filter silently dropped would hold more than the user asked for, so a
    bad value is an error here (history shows it and lists the rest).
    """
    qs, errors = filter_sessions(qs, filter_params(params))
    if errors:
        raise FilterError(errors)
    return qs


def csv_row(row: Mapping[str, Any]) -> list[str]:
    return safe_row(flat_record(row))


def stream_csv(qs: QuerySet[AnnotationSession], page_size: int = CSV_PAGE_SIZE) -> Iterator[str]:
    """The CSV text: the header, then one chunk per page of sessions."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(safe_row(CSV_COLUMNS))
    yield _drain(buffer)
    for page in keyset_pages(qs, page_size, *FLAT_FIELDS):
        writer.writerows(csv_row(row) for row in page)
        yield _drain(buffer)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def stream_jsonl(qs: QuerySet[AnnotationSession], page_size: int = JSONL_PAGE_SIZE) -> Iterator[str]:
    """One JSON line per session with its full record: iterations, issues, steps, calls, reviews."""
    for page in keyset_pages(qs, page_size):
        ids = [row["id"] for row in page]
        sessions = with_record_relations(AnnotationSession.objects.filter(pk__in=ids))
        by_id = {s.pk: s for s in sessions}
        lines = [json.dumps(export_record(by_id[i]), ensure_ascii=False, default=str)
                 for i in ids if i in by_id]
        if lines:
            yield "\n".join(lines) + "\n"


def stream_export(fmt: ExportFormat | str, qs: QuerySet[AnnotationSession]) -> Iterator[str]:
    """The chunks of *qs* exported as *fmt*."""
    fmt = fmt if isinstance(fmt, ExportFormat) else check_format(fmt)
    if fmt.name == "csv":
        return stream_csv(qs)
    return stream_jsonl(qs)


_END = object()


def _encoded(chunks: Iterator[str]) -> Iterator[bytes]:
    for chunk in chunks:
        yield chunk.encode("utf-8")


async def _served_async(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    # Each chunk is read in Django's sync thread (the one the view's queries used), one page at a time.
    pull = sync_to_async(lambda: next(chunks, _END), thread_sensitive=True)
    while (chunk := await pull()) is not _END:
        yield chunk


def export_response(request: HttpRequest, fmt: ExportFormat,
                    qs: QuerySet[AnnotationSession]) -> StreamingHttpResponse:
    """A download of *qs* as *fmt*, streamed whether the server is ASGI or WSGI.

    An ASGI server would read a plain iterator into one list before sending (the whole
    export in memory), so there it gets an async iterator pulling one page at a time.
    """
    chunks = _encoded(stream_export(fmt, qs))
    django_request = getattr(request, "_request", request)
    content = _served_async(chunks) if isinstance(django_request, ASGIRequest) else chunks
    response = StreamingHttpResponse(content, content_type=fmt.content_type)
    response["Content-Disposition"] = content_disposition_header(True, fmt.filename)
    response["X-Content-Type-Options"] = "nosniff"
    return response
