"""Minimal asyncio HTTP/1.1 and websocket clients for the load benchmark (stdlib only, loopback only).

Small on purpose: one request per connection (``Connection: close``), unfragmented text frames from
the server, masked frames from us. Enough to drive daphne; not a general-purpose client.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

LOOPBACK = "127.0.0.1"


@dataclass
class HttpResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return status, headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        for _ in range(100_000):  # bounded: a page is far smaller than 100,000 chunks
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        return b"".join(chunks)
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    return await reader.read()


async def http_request(port: int, method: str, path: str, *, headers: dict[str, str] | None = None,
                       json_body: Any = None, timeout: float = 30) -> HttpResponse:
    """One request on a fresh connection to 127.0.0.1:*port*; raises on timeout or a broken connection."""
    body = b"" if json_body is None else json.dumps(json_body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {LOOPBACK}:{port}", "Connection: close",
             f"Content-Length: {len(body)}"]
    if json_body is not None:
        lines.append("Content-Type: application/json")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]

    async def go() -> HttpResponse:
        reader, writer = await asyncio.open_connection(LOOPBACK, port)
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            status, response_headers = await _read_head(reader)
            return HttpResponse(status, response_headers, await _read_body(reader, response_headers))
        finally:
            writer.close()

    return await asyncio.wait_for(go(), timeout)


@dataclass
class WebSocket:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    close_code: int | None = None
    _closed: bool = field(default=False)

    async def receive(self, timeout: float) -> str | None:
        """The next text message; None once the server closed the socket."""
        for _ in range(1000):  # bounded: skips at most that many control frames in a row
            first, second = await asyncio.wait_for(self.reader.readexactly(2), timeout)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            payload = await self.reader.readexactly(length)
            if opcode == 0x8:
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                self._closed = True
                return None
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode in (0x1, 0x0):
                return payload.decode("utf-8", errors="replace")
        return None

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        length = len(payload)
        head = bytes([0x80 | opcode])
        if length < 126:
            head += bytes([0x80 | length])
        elif length < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(head + mask + masked)

    async def close(self) -> None:
        try:
            if not self._closed:
                self._send_frame(0x8, struct.pack("!H", 1000))
                await asyncio.wait_for(self.writer.drain(), 2)
        except (TimeoutError, OSError):
            pass
        finally:
            self.writer.close()


async def ws_connect(port: int, path: str, *, cookie: str, timeout: float = 10) -> WebSocket:
    """Open a websocket to 127.0.0.1:*port*; raises unless the server answers 101."""
    key = base64.b64encode(os.urandom(16)).decode()
    origin = f"http://{LOOPBACK}:{port}"
    request = (f"GET {path} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n"
               f"Cookie: {cookie}\r\n\r\n")

    async def go() -> WebSocket:
        reader, writer = await asyncio.open_connection(LOOPBACK, port)
        writer.write(request.encode("latin-1"))
        await writer.drain()
        status, _ = await _read_head(reader)
        if status != 101:
            writer.close()
            raise ConnectionError(f"websocket handshake answered {status}")
        return WebSocket(reader, writer)

    return await asyncio.wait_for(go(), timeout)
