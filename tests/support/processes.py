"""Child processes the tests start (daphne, the llama.cpp server): ports and clean stops."""

from __future__ import annotations

import socket
import subprocess


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process: subprocess.Popen, timeout: float = 10) -> None:
    """Ask the child to stop; kill it if it does not within *timeout* seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
