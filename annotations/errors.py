"""The one family of request errors: each names the input at fault (``field``) and the HTTP status it means.

Services raise them; two adapters translate them, so no view guesses from a message's text:
``annotations.api.exceptions.exception_handler`` for the REST API (DRF's ``EXCEPTION_HANDLER``) and
:func:`show_on_form` / :func:`show_as_message` here for the pages.

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

from typing import Any

from django.contrib import messages


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


# --- the pages' adapter ------------------------------------------------------------------------


def show_on_form(form: Any, exc: RequestError) -> int:
    """Put *exc* beside its field on *form* (at the top when the form has no such field); its status."""
    form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    return exc.status


def show_as_message(request: Any, exc: Exception) -> int:
    """Flash *exc* as an error message (as a sentence) for the page redirected to; its status."""
    messages.error(request, sentence(getattr(exc, "message", None) or str(exc)))
    return getattr(exc, "status", 400)
