"""An OpenAI-compatible endpoint on loopback that answers every chat request with one huge, valid completion.

The body is written in fixed chunks by a bounded loop; the server counts what it managed to write before the client
hung up, so a test can tell how much the client took. ``gzip=True`` sends it compressed (a small body that inflates
to the huge one), as a hostile server may whatever the client asked for.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

from tests.support.loopback import LoopbackServer

CHUNK = 64 * 1024
TAG = "Red, "  # a HED tag: the reply reads as one (enormous) annotation


class HugeOpenAI(LoopbackServer):
    """``with HugeOpenAI(10 * 2**20) as server:`` answers each chat request with a *content_bytes* reply."""

    def __init__(self, content_bytes: int, *, gzip: bool = False, stall: bool = False) -> None:
        self.content_bytes = content_bytes
        self.gzip = gzip
        self.stall = stall  # after the first chunk, write nothing more until the server stops
        self.requests = 0
        self.written: list[int] = []  # bytes of body written per request, until the client hung up
        self._lock = threading.Lock()
        super().__init__(_handler(self))

    @property
    def body_bytes(self) -> int:
        return len(b"".join(self.body()))

    def body(self) -> Iterator[bytes]:
        """The completion, a chunk at a time: a JSON head, *content_bytes* of tags, a JSON tail."""
        head = b'{"id": "c", "object": "chat.completion", "model": "m", "choices": [{"index": 0, ' \
               b'"finish_reason": "stop", "message": {"role": "assistant", "content": "Sensory-event, '
        tail = b'Blue"}}], "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}'
        piece = (TAG * (CHUNK // len(TAG))).encode()
        yield head
        for _ in range(self.content_bytes // len(piece)):
            yield piece
        yield tail

    def encoded(self) -> list[bytes]:
        chunks = list(self.body())
        if not self.gzip:
            return chunks
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip stream
        # Chunk by chunk: the server's own memory stays small (tracemalloc sees this thread too).
        return [b"".join(packer.compress(chunk) for chunk in chunks) + packer.flush()]



def _handler(server: HugeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            chunks = server.encoded()
            with server._lock:
                server.requests += 1
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(sum(len(c) for c in chunks)))
            if server.gzip:
                self.send_header("Content-Encoding", "gzip")
            self.end_headers()
            written = 0
            try:
                for chunk in chunks:  # bounded: the body's chunks, once
                    self.wfile.write(chunk)
                    written += len(chunk)
                    if server.stall:
                        self.wfile.flush()
                        server._release.wait(60)  # released by stop(); the bound only ends a forgotten server
                        return
            except OSError:  # the client hung up: what it took is what was written until then
                pass
            with server._lock:
                server.written.append(written)
            self.close_connection = True

    return Handler
