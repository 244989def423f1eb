"""The validation pool ends with the process that owns it: a kill -9 of a server or a worker process leaves none
of its pool's processes (fork server, resource tracker, workers) running under PID 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 20.0

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, start time) of *pid*, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0], fields[19]


def _descendants(root: int) -> dict[int, str]:
    """Every process under *root* now, with its start time (a pid reused later is another process)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None:
            parents.setdefault(found[0], []).append(int(entry.name))
    out: dict[int, str] = {}
    todo = [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            if (found := _stat(child)) is not None:
                out[child] = found[2]
                todo.append(child)
    return out


def _running(processes: dict[int, str]) -> list[int]:
    """Those of *processes* still running (not ended, not a zombie waiting to be reaped)."""
    return [pid for pid, started in processes.items()
            if (found := _stat(pid)) is not None and found[2] == started and found[1] != "Z"]


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_a_killed_owner_leaves_no_pool_process_behind(method: str) -> None:
    owner = subprocess.Popen([sys.executable, "-m", "tests.support.pool_owner", method], cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    pool_processes: dict[int, str] = {}
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "ready"
        pool_processes = _descendants(owner.pid)
        assert len(pool_processes) >= 2, pool_processes  # the workers at least (and a fork server and tracker)
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(timeout=DEADLINE)
        deadline = time.monotonic() + DEADLINE
        while (left := _running(pool_processes)) and time.monotonic() < deadline:
            time.sleep(0.05)  # polled until the deadline: how soon the system reaps them varies
        assert not left, {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:100] for pid in left}
    finally:
        if owner.poll() is None:
            owner.kill()
        for pid in _running(pool_processes):  # a failed test leaves no orphan of its own behind
            os.kill(pid, signal.SIGKILL)
