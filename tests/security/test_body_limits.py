"""Finding 5: request bodies are refused from their size before they are read into memory."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from hedit_site.request_limits import BodyLimitMiddleware, body_limit
from tests.support.processes import free_port, stop

ROOT = Path(__file__).resolve().parents[2]


def run_app(headers: list[tuple[bytes, bytes]], chunks: list[bytes], path: str = "/api/validate/"):
    """Drive the middleware over an app that reads the whole body; returns (status, bodies read)."""
    sent: list[dict] = []
    pulled: list[int] = []
    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

    async def receive():
        pulled.append(1)
        return pending.pop(0)

    async def send(message):
        sent.append(message)

    async def app(scope, receive, send):
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    scope = {"type": "http", "path": path, "headers": headers}
    asyncio.run(BodyLimitMiddleware(app)(scope, receive, send))
    return sent[0]["status"], len(pulled)


def test_a_declared_oversized_body_is_refused_unread():
    size = settings.HEDIT_MAX_REQUEST_BYTES + 1
    status, pulled = run_app([(b"content-length", str(size).encode())], [b"x"])
    assert (status, pulled) == (413, 0)


def test_an_undeclared_body_is_cut_off_at_the_limit():
    chunk = b"x" * (1024 * 1024)
    chunks = [chunk] * (settings.HEDIT_MAX_REQUEST_BYTES // len(chunk) + 3)
    status, pulled = run_app([], chunks)
    assert status == 413 and pulled < len(chunks)


def test_bodies_within_the_limit_pass_and_upload_paths_get_their_own():
    assert run_app([(b"content-length", b"3")], [b"abc"]) == (200, 1)
    assert body_limit("/datasets/new/") == settings.HEDIT_MAX_UPLOAD_BYTES > body_limit("/api/validate/")


def test_django_keeps_little_in_memory():
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE <= 1024 * 1024
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE <= 1024 * 1024


@pytest.fixture(scope="module")
def daphne_port(tmp_path_factory):
    port = free_port()
    state = tmp_path_factory.mktemp("daphne-state")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEDIT_LLM_", "DJANGO_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "hedit_site.settings", "HEDIT_STATE_DIR": str(state),
                "DATABASE_URL": f"sqlite:///{state / 'db.sqlite3'}"})
    log = (state / "daphne.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                             "hedit_site.asgi:application"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)  # waiting for a child process to listen
    yield port
    stop(proc)
    log.close()


def test_daphne_refuses_a_200_mb_upload_before_it_is_sent(daphne_port):
    # Only the headers are sent: the answer must come without waiting for the 200 MB.
    with socket.create_connection(("127.0.0.1", daphne_port), timeout=10) as conn:
        conn.sendall(b"POST /api/validate/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 200000000\r\n\r\n")
        conn.settimeout(10)
        answer = conn.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413")


def test_daphne_cuts_off_a_chunked_body_at_the_limit(daphne_port):
    with socket.create_connection(("127.0.0.1", daphne_port), timeout=10) as conn:
        conn.sendall(b"POST /api/validate/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (1024 * 1024, b"x" * 1024 * 1024)
        answer = b""
        conn.settimeout(10)
        try:
            for _ in range(settings.HEDIT_MAX_REQUEST_BYTES // (1024 * 1024) + 4):
                conn.sendall(chunk)
        except OSError:
            pass  # the server closed the connection after refusing
        answer = conn.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413")
