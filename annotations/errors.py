"""The one family of request errors: each names the input at fault (``field``) and the HTTP status it means.

Services raise them; :func:`as_request_error` reads any exception as one of them (a refused upload, a rule's
``PermissionError``) and two adapters translate them, so no view guesses from a message's text:
``annotations.api.exceptions.exception_handler`` for the REST API (DRF's ``EXCEPTION_HANDLER``), and for the
pages the blocks below (:func:`on_form`, :func:`as_message`, :func:`caught`) where a page shows the error
itself, and ``hedit_site.middleware.RequestErrorMiddleware`` (:func:`error_response`) for every error a page
view lets through: its status with the message, as a page or, for htmx, as text.

===================  ======  =================================================================
class                status  meaning
===================  ======  =================================================================
``RequestError``     400     bad input; ``field`` names it when one field is at fault
``FieldError``       400     the same, the field required (``FieldError(field, message)``)
``Forbidden``        403     the user may not do this
``NotFound``         404     there is no such thing (for this user)
``Conflict``         409     the thing is not in a state that allows it (e.g. already running)
``QuotaExceeded``    429     a limit of :mod:`annotations.limits`; ``retry_after`` in seconds
===================  ======  =================================================================
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults
from django_htmx.http import reswap

from bidsdata.errors import DatasetError

logger = logging.getLogger(__name__)


class RequestError(ValueError):
    """A request that cannot be carried out; the message is shown to the user as is.

    *field* names the input at fault (None: the request as a whole); *status* is the HTTP status.
    """

    status: int = 400

    def __init__(self, message: str, *, field: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if status is not None:
            self.status = status

    def as_dict(self, default_field: str = "non_field_errors") -> dict[str, list[str]]:
        """The API's 400 body: the field's name, or *default_field*, with the message."""
        return {self.field or default_field: [self.message]}


class FieldError(RequestError):
    """A request that cannot be carried out because of *field*; *message* is shown as is."""

    def __init__(self, field: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message, field=field, status=status)


class Forbidden(RequestError):
    status = 403


class NotFound(RequestError):
    status = 404


class Conflict(RequestError):
    status = 409


class QuotaExceeded(RequestError):
    """A limit is reached: *retry_after* is the number of seconds until the request may succeed."""

    status = 429

    def __init__(self, message: str, retry_after: int, *, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after


def sentence(text: str) -> str:
    """*text* as users read every message: a capital letter first, a full stop last.

    The agents and commands keep their lower-case one-liners (CLI style); the pages and the API
    pass them through here.
    """
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def as_request_error(exc: BaseException) -> RequestError | None:
    """*exc* as one of the family; None when it is none of ours (a bug, the operating system's error).

    A refused upload (:class:`bidsdata.errors.DatasetError`: the reader is plain Python and knows nothing of
    HTTP) is a 400 on ``files``; a rule's refusal raised as a plain ``PermissionError`` (no ``errno``: not the
    operating system's) is a 403.
    """
    if isinstance(exc, RequestError):
        return exc
    if isinstance(exc, DatasetError):
        return FieldError("files", str(exc))
    if isinstance(exc, PermissionError) and exc.errno is None:
        return Forbidden(str(exc))
    return None


# --- the pages' adapter ------------------------------------------------------------------------

REFUSALS = (403, 404)
"""Statuses :func:`as_message` lets through to the status page: no message on a page one may not act on."""


def show_on_form(form: Any, exc: RequestError) -> int:
    """Put *exc* beside its field on *form* (at the top when the form has no such field); its status."""
    form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    return exc.status


def show_as_message(request: Any, exc: Exception) -> int:
    """Flash *exc* as an error message (as a sentence) for the page redirected to; its status."""
    messages.error(request, sentence(getattr(exc, "message", None) or str(exc)))
    return getattr(exc, "status", 400)


@dataclass
class Outcome:
    """How a guarded block ended: *error* is the request error it raised, None when it ran to its end."""

    error: RequestError | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def status(self) -> int:
        return self.error.status if self.error is not None else 200

    @property
    def message(self) -> str:
        """The error as users read it ("" when there was none)."""
        return sentence(self.error.message) if self.error is not None else ""


@contextmanager
def caught(*kinds: type[RequestError]) -> Iterator[Outcome]:
    """Run the block; a request error it raises (of *kinds*, default any) ends it and is kept on the outcome.

    The page then shows the error its own way; anything else goes on (to the middleware, or as a bug).
    """
    outcome = Outcome()
    try:
        yield outcome
    except Exception as exc:
        error = as_request_error(exc)
        if error is None or not isinstance(error, kinds or (RequestError,)):
            raise
        outcome.error = error


@contextmanager
def on_form(form: Any) -> Iterator[Outcome]:
    """Run the block; a request error ends it and is shown beside its field on *form* (:func:`show_on_form`)."""
    with caught() as outcome:
        yield outcome
    if outcome.error is not None:
        show_on_form(form, outcome.error)


@contextmanager
def as_message(request: HttpRequest) -> Iterator[Outcome]:
    """Run the block; a request error ends it and is flashed for the page the view redirects to.

    A refusal (403, 404) goes on to the status page instead (:func:`error_response`).
    """
    with caught() as outcome:
        yield outcome
    if outcome.error is not None:
        if outcome.error.status in REFUSALS:
            raise outcome.error
        show_as_message(request, outcome.error)


def error_response(request: HttpRequest, error: RequestError) -> HttpResponse:
    """The answer to a request error no page showed: its status with the message as users read it.

    For htmx the message as text, swapped nowhere (the page stays as it was; htmx leaves 4xx unswapped by
    default, this says so whatever its configuration); otherwise the site's page for the status.
    """
    message = sentence(error.message)
    if getattr(request, "htmx", False):
        response: HttpResponse = reswap(HttpResponse(message, status=error.status,
                                                     content_type="text/plain; charset=utf-8"), "none")
    elif error.status == 403:
        response = defaults.permission_denied(request, PermissionDenied(message))
    elif error.status == 404:
        response = defaults.page_not_found(request, Http404(message))
    else:
        response = render(request, "errors/request_error.html", {"message": message, "status": error.status},
                          status=error.status)
    if isinstance(error, QuotaExceeded):
        response["Retry-After"] = str(error.retry_after)
    logger.info("%s %s answered %s: %s", request.method, request.path, error.status, error.message)
    return response
