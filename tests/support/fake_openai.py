"""A scripted OpenAI-compatible chat server (stdlib only) that tests start in a thread.

Each POST to ``/v1/chat/completions`` is recorded and answered with the next scripted
:class:`Reply` (the last one repeats): a text with usage, an HTTP error, a dropped
connection, or a hang until the server stops (for client timeouts).  A reply may also be a
function of the recorded request.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import LoopbackServer
from tests.support.processes import free_port


@dataclass(frozen=True)
class Reply:
    text: str = "Sensory-event"
    status: int = 200
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None  # OpenRouter-style usage.cost
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection without answering
    hang: bool = False  # answer only when the server stops
    error: dict[str, Any] | None = None  # the "error" object of a non-200 answer
    model: str | None = None  # the model the answer claims (a router's choice); default: the one asked for
    raw: bytes | None = None  # the HTTP body as is, with *status* (a broken or hostile endpoint)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def text(self) -> str:
        """Every message's text, image parts included as their URLs."""
        out = []
        for m in self.messages:
            content = m.get("content")
            if isinstance(content, list):
                out += [str(p.get("text") or p.get("image_url", {}).get("url", "")) for p in content]
            else:
                out.append(str(content))
        return "\n".join(out)


Script = Sequence[Reply | str | Callable[[Recorded], Reply | str]]


class FakeOpenAI(LoopbackServer):
    def __init__(self, script: Script = ("Sensory-event",), *, required_key: str | None = None) -> None:
        self.script = list(script)
        self.required_key = required_key
        self.requests: list[Recorded] = []
        self._count = 0
        self._lock = threading.Lock()
        super().__init__(_handler(self))

    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            item = self.script[min(self._count, len(self.script) - 1)]
            self._count += 1
        if callable(item):
            item = item(recorded)
        return Reply(text=item) if isinstance(item, str) else item


def closed_port_url() -> str:
    """A base URL nothing listens on: bind a port, then let it go."""
    return f"http://127.0.0.1:{free_port()}/v1"


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else len(json.dumps(body["messages"])) // 4
    completion = reply.completion_tokens if reply.completion_tokens is not None else len(reply.text) // 4 + 1
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
    if reply.cost is not None:
        usage["cost"] = reply.cost
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": reply.model or body.get("model", ""), "usage": usage,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.text}}]}


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return None

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            recorded = Recorded(path=self.path, headers={k.lower(): v for k, v in self.headers.items()},
                                body=body)
            if fake.required_key is not None and recorded.headers.get("authorization") != \
                    f"Bearer {fake.required_key}":
                with fake._lock:
                    fake.requests.append(recorded)
                self._send(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                           "code": "invalid_api_key"}})
                return
            reply = fake._next(recorded)
            if reply.drop:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if reply.hang:
                fake._release.wait(60)
                self.close_connection = True
                return
            if reply.raw is not None:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply.raw)))
                self.end_headers()
                self.wfile.write(reply.raw)
                return
            if reply.status != 200:
                error = reply.error or {"message": reply.text, "type": "error", "code": reply.status}
                self._send(reply.status, {"error": error}, reply.headers)
                return
            self._send(200, _completion(body, reply), reply.headers)

    return Handler
