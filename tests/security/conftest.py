"""Fixtures for the hardening tests: a fake DNS and scripted LLM endpoints."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import pytest

from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake_dns(monkeypatch) -> Callable[[dict[str, list[str]]], None]:
    """``fake_dns({"name.example": ["10.0.0.1", ...]})``: those names resolve to those addresses;
    every other name resolves as usual (addresses resolve to themselves)."""
    real = socket.getaddrinfo
    names: dict[str, list[str]] = {}

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        key = host.decode() if isinstance(host, bytes) else str(host)
        if key.lower() not in names:
            return real(host, port, family, type, proto, flags)
        out = []
        for address in names[key.lower()]:
            fam = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, int(port or 0), 0, 0) if fam == socket.AF_INET6 else (address, int(port or 0))
            out.append((fam, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
        return out

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    def install(mapping: dict[str, list[str]]) -> None:
        names.update({k.lower(): v for k, v in mapping.items()})

    return install


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def no_runs(settings):
    """Runs are stored but never executed."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    return settings
