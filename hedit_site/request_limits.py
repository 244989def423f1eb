"""Request bodies bounded before they are read into memory.

Two layers, one limit (``HEDIT_MAX_REQUEST_BYTES``; paths under ``HEDIT_UPLOAD_PATHS`` get
``HEDIT_MAX_UPLOAD_BYTES``):

* :class:`BodyLimitMiddleware`, an ASGI middleware for any server: a declared Content-Length
  over the limit is answered 413 before the body is read; a body without one (chunked) is
  counted as it arrives and cut off at the limit.
* :func:`limit_daphne_bodies` for daphne, which receives the *whole* body before it calls the
  application (spooled to a temporary file, then queued to the application in memory): the
  limit is applied as soon as the request headers are in, so an oversized upload is refused
  before its body is received, and a chunked one as soon as it passes the limit.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_LIMIT = 6 * 1024 * 1024
TOO_LARGE = "The request body is too large for this server (limit {limit} bytes)."


def body_limit(path: str) -> int:
    """The largest body, in bytes, a request to *path* may send."""
    from django.conf import settings

    uploads = getattr(settings, "HEDIT_UPLOAD_PATHS", []) or []
    if any(prefix and path.startswith(prefix) for prefix in uploads):
        return int(getattr(settings, "HEDIT_MAX_UPLOAD_BYTES", DEFAULT_LIMIT))
    return int(getattr(settings, "HEDIT_MAX_REQUEST_BYTES", DEFAULT_LIMIT))


class BodyTooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """Refuse HTTP requests whose body passes :func:`body_limit` with 413, before reading it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(scope.get("path", ""))
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            logger.warning("refused a %d byte request body to %s (limit %d)", declared, scope.get("path"), limit)
            await _send_413(send, limit)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            logger.warning("cut off a request body to %s past %d bytes", scope.get("path"), limit)
            if not started:
                await _send_413(send, limit)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_413(send: Send, limit: int) -> None:
    body = TOO_LARGE.format(limit=limit).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def limit_daphne_bodies() -> bool:
    """Make daphne refuse oversized bodies while receiving them, and leave form parsing to Django; False when
    daphne is not installed.

    Daphne builds one ``WebRequest`` per request from ``daphne.http_protocol``; a subclass that
    checks the limit in Twisted's ``gotLength`` (headers parsed, body not yet read) and in
    ``handleContentChunk`` takes its place.  Idempotent.
    """
    try:
        from daphne import http_protocol
    except ImportError:  # pragma: no cover - another ASGI server: the middleware alone applies
        return False
    if getattr(http_protocol.WebRequest, "hedit_body_limit", False):
        return True
    http_protocol.WebRequest = _limited_request_class(http_protocol.WebRequest)
    return True


def _limited_request_class(base: type) -> type:
    import io

    class LimitedWebRequest(base):  # type: ignore[misc, valid-type]
        hedit_body_limit = True
        _limit = DEFAULT_LIMIT
        _received = 0
        _refused = False

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # Twisted would parse a POSTed form itself (the whole body read into memory and through the email
            # parser: a 49 MB multipart upload cost the server over 500 MB) into ``args``, which daphne never
            # reads: Django parses the body, streaming files to disk.
            self._parsePOSTFormSubmission = False

        def gotLength(self, length: int | None) -> None:
            path = (getattr(self.channel, "_path", b"") or b"").split(b"?", 1)[0]
            self._limit = body_limit(path.decode("latin-1"))
            if length is not None and length > self._limit:
                self.content = io.BytesIO()
                self._refuse(length)
                return
            super().gotLength(length)

        def handleContentChunk(self, data: bytes) -> None:
            if self._refused:
                return
            self._received += len(data)
            if self._received > self._limit:
                self._refuse(self._received)
                return
            super().handleContentChunk(data)

        def process(self) -> Any:
            if self._refused:
                return None
            return super().process()

        def _refuse(self, size: int) -> None:
            self._refused = True
            logger.warning("refused a request body of %d+ bytes (limit %d)", size, self._limit)
            body = TOO_LARGE.format(limit=self._limit).encode()
            head = (b"HTTP/1.1 413 Content Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
            transport = self.channel.transport
            if transport is not None:
                transport.write(head + body)
            self.channel.loseConnection()

    return LimitedWebRequest
