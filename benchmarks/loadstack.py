"""The processes the load benchmark starts: its own database, daphne on a free port, workers.

Everything is on loopback and belongs to this benchmark alone: a temporary SQLite file (embedded)
or a PostgreSQL database ``hedit_load_<pid>`` and a Redis key prefix of its own (scale-out), all
removed again on exit.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DAPHNE = str(Path(PYTHON).with_name("daphne"))
PG_ADMIN = os.environ.get("HEDIT_LOAD_PG", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_BASE = os.environ.get("HEDIT_LOAD_REDIS", "redis://127.0.0.1:6379/12")

logger = logging.getLogger("load")

_SETUP_USER = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_user("loaduser", password="load-pw-12345-x")
token = Token.objects.create(user=user)
store = SessionStore()
store[SESSION_KEY] = str(user.pk)
store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
store[HASH_SESSION_KEY] = user.get_session_auth_hash()
store.create()
print("LOADCRED " + json.dumps({"token": token.key, "session": store.session_key}))
"""


@dataclass
class Stack:
    mode: str
    port: int = 0
    token: str = ""
    cookie: str = ""
    env: dict[str, str] = field(default_factory=dict)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="hedit-load-")))
    processes: list[tuple[str, subprocess.Popen]] = field(default_factory=list)
    worker_command: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _has_hedit_worker() -> bool:
    return any(ROOT.glob("annotations/**/management/commands/hedit_worker.py"))


def _manage(stack: Stack, *args: str, timeout: float = 300) -> str:
    done = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=stack.env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def _start(stack: Stack, name: str, command: list[str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen:
    log = (stack.workdir / f"{name}.log").open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=stack.env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True, pass_fds=pass_fds)
    stack.processes.append((name, process))
    return process


def _wait_http(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before it listened")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listened on port {port} within {timeout} s")


def _wait_log(log: Path, marker: bytes, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before it listened")
        if marker in log.read_bytes():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{log.name} did not show {marker!r} within {timeout} s")


def _stop_all(stack: Stack) -> None:
    for name, process in reversed(stack.processes):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                logger.warning("%s did not stop; killing it", name)
                process.kill()
                process.wait(timeout=15)


def _create_pg_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def _drop_pg_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _clear_redis(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_BASE)
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))[:100_000]
    if keys:
        client.delete(*keys)


def _listening_socket() -> socket.socket:
    """A loopback socket on a free port for every web process to accept from (``daphne --fd``)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    listener.set_inheritable(True)
    return listener


def _start_web(stack: Stack, web: int) -> None:
    """One daphne on a port of its own, or *web* daphnes sharing one listening socket (scale-out)."""
    app = "hedit_site.asgi:application"
    if web == 1:
        stack.port = free_port()
        _wait_http(stack.port, _start(stack, "daphne", [DAPHNE, "-b", "127.0.0.1", "-p", str(stack.port), app]))
        return
    with _listening_socket() as listener:
        stack.port = listener.getsockname()[1]
        fd = listener.fileno()
        servers = [_start(stack, f"daphne{n}", [DAPHNE, "--fd", str(fd), app], pass_fds=(fd,)) for n in range(web)]
        # The kernel queues connections on the shared socket at once, so a connection proves nothing:
        # wait until each server says it listens.
        for n, server in enumerate(servers):
            _wait_log(stack.workdir / f"daphne{n}.log", b"Listening on", server)


@contextlib.contextmanager
def running_stack(mode: str, *, workers: int = 2, web: int = 1,
                  extra_env: dict[str, str] | None = None) -> Iterator[Stack]:
    """Start the servers for *mode* ("embedded" or "scaleout"); stop and remove everything afterwards.

    *web* daphne processes serve HTTP and websockets (scale-out only: the embedded mode's runs and
    channel layer live inside its one server process).
    """
    if mode == "embedded" and web != 1:
        raise ValueError("the embedded mode runs in one web process")
    stack = Stack(mode=mode)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEDIT_", "DATABASE_", "REDIS_URL"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "hedit_site.settings", "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40), "HEDIT_MEDIA_ROOT": str(stack.workdir / "media"),
        # The benchmark user creates far more runs than the per-user quota allows a person.
        "HEDIT_RUN_RATE": "1000000/hour", "HEDIT_API_CREATE_RATE": "1000000/hour",
        "HEDIT_LOG_LEVEL": "WARNING",
    })
    db_name = f"hedit_load_{os.getpid()}"
    prefix = f"hedit-load-{os.getpid()}"
    if mode == "embedded":
        env.update({"DATABASE_URL": f"sqlite:///{stack.workdir / 'db.sqlite3'}", "HEDIT_TASK_BACKEND": "thread"})
    else:
        _create_pg_database(db_name)
        env.update({"DATABASE_URL": PG_ADMIN.rsplit("/", 1)[0] + f"/{db_name}", "REDIS_URL": REDIS_BASE,
                    "HEDIT_CHANNEL_PREFIX": prefix, "HEDIT_TASK_BACKEND": "database",
                    "DATABASE_POOL_SIZE": os.environ.get("HEDIT_LOAD_POOL_SIZE", "10")})
    env.update(extra_env or {})
    stack.env = env
    try:
        _manage(stack, "migrate", "--noinput")
        line = next(x for x in _manage(stack, "shell", "-c", _SETUP_USER).splitlines() if x.startswith("LOADCRED "))
        cred = json.loads(line.removeprefix("LOADCRED "))
        stack.token, stack.cookie = cred["token"], f"sessionid={cred['session']}"
        _start_web(stack, web)
        if mode == "scaleout":
            if _has_hedit_worker():
                stack.worker_command = [PYTHON, "manage.py", "hedit_worker"]
            else:
                # Before hedit_worker existed: the stock worker, without its autoreloader.
                stack.worker_command = [PYTHON, "manage.py", "db_worker", "--no-reload", "--interval", "0.2"]
            for n in range(workers):
                _start(stack, f"worker{n}", stack.worker_command)
        yield stack
    finally:
        _stop_all(stack)
        if mode == "scaleout":
            with contextlib.suppress(Exception):
                _drop_pg_database(db_name)
            with contextlib.suppress(Exception):
                _clear_redis(prefix)
        if os.environ.get("HEDIT_LOAD_KEEP"):
            logger.warning("kept %s", stack.workdir)
        else:
            shutil.rmtree(stack.workdir, ignore_errors=True)


def dead_processes(stack: Stack) -> list[str]:
    """Names of the started processes that have exited (a crashed worker or server)."""
    return [name for name, process in stack.processes if process.poll() is not None]
