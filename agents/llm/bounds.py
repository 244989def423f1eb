"""What one model reply may cost the server: its size, bounded while it is read.

Without a bound a user's endpoint answering 10 MB (or an endless body) is read whole into memory, decoded by
the SDK into several more copies, and stored again and again; a body compressed a thousandfold costs a thousand
times its bytes once inflated. So every HTTP client the models use gets :func:`bounded_event_hooks`: each
request asks for an uncompressed reply, and each response's body is read through :class:`BoundedStream`, which
counts the bytes as they arrive (after inflating gzip or deflate itself, in bounded steps) and stops with
:class:`ReplyTooLarge` one chunk past the cap, before anything parses it. The total time of a call is bounded by
the caller (:class:`agents.llm.openai_model.OpenAIChatModel`), around the whole exchange.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

try:  # the HTTP library the openai SDK uses (see agents.llm.endpoints)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed openai
    import httpx  # type: ignore[no-redef]

logger = logging.getLogger(__name__)

# Inflating: at most this much output per step, so one small compressed chunk cannot become gigabytes at once.
_INFLATE_STEP = 64 * 1024
# zlib's window bits: 47 reads a gzip or a zlib header (what "gzip" and "deflate" bodies carry), -15 raw deflate.
_GZIP_OR_ZLIB, _RAW_DEFLATE = 47, -15


class ReplyTooLarge(RuntimeError):
    """A reply's body passed the byte cap; reading stopped there. The message is one line for users."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"its reply is larger than {limit:,} bytes (HEDIT_LLM_MAX_REPLY_BYTES); reading stopped "
                         "there")
        self.limit = limit


class ReplyUnreadable(RuntimeError):
    """A reply compressed in a way the server will not inflate (it asked for none)."""


class _Inflater:
    """gzip or deflate, inflated a bounded step at a time (``httpx`` would inflate each chunk whole)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._zlib = zlib.decompressobj(_GZIP_OR_ZLIB)
        self._fresh = True

    def inflate(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                piece = self._zlib.decompress(data, _INFLATE_STEP)
            except zlib.error:
                if not (self._fresh and self.encoding == "deflate"):
                    raise ReplyUnreadable(f"its {self.encoding} body cannot be inflated") from None
                # "deflate" is meant zlib-wrapped but is often sent raw: try that, from the start.
                self._zlib, self._fresh = zlib.decompressobj(_RAW_DEFLATE), False
                continue
            self._fresh = False
            data = self._zlib.unconsumed_tail  # what the step left: the next step takes it
            if piece:
                yield piece


class BoundedStream(httpx.AsyncByteStream):
    """A response body read through a byte cap: the body's bytes (inflated, when compressed) are counted as they
    arrive, and past *limit* reading stops with :class:`ReplyTooLarge`; the connection is closed then."""

    def __init__(self, inner: httpx.AsyncByteStream, limit: int, encoding: str = "") -> None:
        self.inner = inner
        self.limit = limit
        self.read = 0  # bytes taken so far (after inflating), for the log and the tests
        self._inflater = _Inflater(encoding) if encoding else None

    def _count(self, data: bytes) -> bytes:
        self.read += len(data)
        if self.read > self.limit:
            logger.warning("LLM reply passed %d bytes; stopped reading", self.limit)
            raise ReplyTooLarge(self.limit)
        return data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            for piece in (chunk,) if self._inflater is None else self._inflater.inflate(chunk):
                yield self._count(piece)

    async def aclose(self) -> None:
        await self.inner.aclose()


# Encodings the server inflates itself (bounded); anything else is refused: it asked for none.
_INFLATED = {"gzip", "x-gzip", "deflate"}


def bounded_event_hooks(limit: int) -> dict[str, list[Callable[[Any], Awaitable[None]]]]:
    """``event_hooks`` for an ``httpx.AsyncClient``: ask for an uncompressed reply, and read it through *limit*."""

    async def ask_identity(request: httpx.Request) -> None:
        request.headers["Accept-Encoding"] = "identity"

    async def bound(response: httpx.Response) -> None:
        encoding = response.headers.get("Content-Encoding", "").strip().lower()
        if encoding in ("", "identity"):
            response.stream = BoundedStream(response.stream, limit)
            return
        if encoding not in _INFLATED:  # httpx closes the response when a hook raises
            raise ReplyUnreadable(f"its reply is compressed as {encoding!r}, which the server does not read")
        # Inflated here, in bounded steps; the header goes so that httpx does not inflate it again, whole.
        response.stream = BoundedStream(response.stream, limit, "deflate" if encoding == "deflate" else "gzip")
        del response.headers["Content-Encoding"]

    return {"request": [ask_identity], "response": [bound]}
