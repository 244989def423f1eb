"""The REST API's one translation of errors into answers (DRF's ``EXCEPTION_HANDLER``).

:class:`annotations.errors.RequestError` and its family (read by :func:`annotations.errors.as_request_error`,
which the pages share: a refused upload is a 400 on ``files``, a rule's plain ``PermissionError`` a 403)
answer with their own status: 400 as ``{field: [message]}`` (``non_field_errors`` when no field is at
fault), 403, 404 and 409 as ``{"detail": message}``, 429 (:class:`~annotations.errors.QuotaExceeded`) as
DRF's ``Throttled`` with ``Retry-After``.

Everything else goes on to DRF's own handler unchanged.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotations.errors import QuotaExceeded, as_request_error


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


_BY_STATUS: dict[int, type[exceptions.APIException]] = {
    403: exceptions.PermissionDenied, 404: exceptions.NotFound, 409: Conflict}


def as_api_exception(exc: Exception) -> Exception:
    """The DRF exception that answers for *exc*; *exc* itself when it is none of ours."""
    error = as_request_error(exc)
    if error is None:
        return exc
    if isinstance(error, QuotaExceeded):
        return exceptions.Throttled(wait=error.retry_after, detail=error.message)
    if error.status in _BY_STATUS:
        return _BY_STATUS[error.status](error.message)
    return exceptions.ValidationError(error.as_dict())


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    return drf_exception_handler(as_api_exception(exc), context)
