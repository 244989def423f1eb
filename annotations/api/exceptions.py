"""The REST API's one translation of errors into answers (DRF's ``EXCEPTION_HANDLER``).

- :class:`annotations.errors.RequestError` and its family answer with their own status: 400 as
  ``{field: [message]}`` (``non_field_errors`` when no field is at fault), 403, 404 and 409 as
  ``{"detail": message}``, 429 (:class:`~annotations.errors.QuotaExceeded`) as DRF's ``Throttled``
  with ``Retry-After``.
- An upload the dataset reader refuses (``DatasetError``, ``LimitExceeded``: the reader is plain Python
  and knows nothing of HTTP) is a 400 on ``files``.
- A rule's refusal raised as a plain ``PermissionError`` (no ``errno``: not the operating system's) is a 403.

Everything else goes on to DRF's own handler unchanged.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotations.errors import QuotaExceeded, RequestError
from bidsdata.errors import DatasetError


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


_BY_STATUS: dict[int, type[exceptions.APIException]] = {
    403: exceptions.PermissionDenied, 404: exceptions.NotFound, 409: Conflict}


def as_api_exception(exc: Exception) -> Exception:
    """The DRF exception that answers for *exc*; *exc* itself when it is none of ours."""
    if isinstance(exc, QuotaExceeded):
        return exceptions.Throttled(wait=exc.retry_after, detail=exc.message)
    if isinstance(exc, RequestError):
        if exc.status in _BY_STATUS:
            return _BY_STATUS[exc.status](exc.message)
        return exceptions.ValidationError(exc.as_dict())
    if isinstance(exc, DatasetError):
        return exceptions.ValidationError({"files": [str(exc)]})
    if isinstance(exc, PermissionError) and exc.errno is None:
        return exceptions.PermissionDenied(str(exc))
    return exc


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    return drf_exception_handler(as_api_exception(exc), context)
