"""Middleware of the site itself."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from annotations.errors import as_request_error, error_response


class OneThreadMiddleware:
    """A synchronous-only pass-through, placed innermost, so the whole middleware stack runs in one thread.

    Under ASGI, Django runs a middleware asynchronously when it can and adapts at every change of
    mode. WhiteNoise can only run synchronously, and it sits near the top, so every async-capable
    middleware below it ran on the event loop and moved each ``process_request`` and
    ``process_response`` back to a thread: about twenty trips between the loop and a thread per
    request. Each trip waits its turn on a loop that is also serving websockets, which under
    ``benchmarks/load.py`` made pages take a second. With this last in ``MIDDLEWARE`` every
    middleware above it is adapted to run synchronously, in the request's one thread, and only the
    URL resolution and the view's call cross to the loop and back under Django's own handler; the
    site's (:class:`hedit_site.handler.OneThreadASGIHandler`) keeps those in the thread too.
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)


class RequestErrorMiddleware:
    """The pages' one translation of :mod:`annotations.errors`: a request error a page view lets through
    answers with its status and message (:func:`annotations.errors.error_response`), never a 500.

    The REST API answers its own errors inside DRF (``annotations.api.exceptions``), so none reach here from
    it. Synchronous only, like :class:`OneThreadMiddleware` below it, so the stack stays in one thread.
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        error = as_request_error(exception)
        return None if error is None else error_response(request, error)
