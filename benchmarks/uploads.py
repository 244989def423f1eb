"""Hostile dataset uploads against a real server: the answer, wall time and memory of each (issue 16).

    .venv/bin/python benchmarks/uploads.py [--only big-tsv|wide-tsv|small-bomb|levels] [--timeout 60]

A fresh daphne per case on a temporary SQLite database (``DJANGO_DEBUG`` off, loopback, a token user), its
temporary files (``SQLITE_TMPDIR``, ``TMPDIR``) capped at 2 GB by killing it. See benchmarks/README.md.
Exit 1 when a target is missed, 2 when it cannot run, 0 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import os
import random
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
DISK_LIMIT = 2048 * MB
APP = "hedit_site.asgi:application"
ANSWER_TARGET_S, RSS_TARGET_X, PAGE_TARGET_S = 10.0, 3.0, 1.0
SETUP_USER = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_user("uploader", password="uploads-pw-12345-x")
store = SessionStore()
store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
store[HASH_SESSION_KEY] = user.get_session_auth_hash()
store.create()
print("CRED " + json.dumps({"token": Token.objects.create(user=user).key, "session": store.session_key}))
"""
DESCRIPTION = json.dumps({"Name": "uploads benchmark", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}).encode()


@dataclass
class Upload:
    filename: str
    data: bytes
    note: str


def big_tsv() -> Upload:
    rng, kinds = random.Random(16), ["face", "house", "car", "word", "tone", "cue", "go", "stop", "rest", "odd"]
    lines, size, onset = ["onset\tduration\ttrial_type\tresponse_time\tstim_file\tresponse\tcorrect\tblock\n"], 0, 0.0
    while size < 49_000_000:
        onset += rng.uniform(0.8, 1.6)
        kind = rng.choice(kinds)
        lines.append(f"{onset:.3f}\t0.5\t{kind}\t{rng.uniform(0.2, 1.2):.3f}\t{kind[:2]}{rng.randrange(1000):03d}.png"
                     f"\t{rng.choice(('left', 'right', 'n/a'))}\t{rng.randrange(2)}\t{len(lines) // 5000}\n")
        size += len(lines[-1])
    return Upload("sub-01_task-big_events.tsv", "".join(lines).encode(), f"plain TSV, {len(lines) - 1:,} rows")


def wide_tsv() -> Upload:
    rows = ["\t".join(["onset", "duration"] + [f"c{c}" for c in range(9998)])]
    rows += ["\t".join([f"{n * 2}.0", "0.5"] + [f"{n}.{c % 1000:03d}" for c in range(9998)]) for n in range(1, 10)]
    return Upload("sub-01_task-wide_events.tsv", ("\n".join(rows) + "\n").encode(), "plain TSV, 10,000 columns, 9 rows")


def zipped(name: str, members: dict[str, bytes], note: str) -> Upload:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path, data in members.items():
            archive.writestr(path, data)
    expanded = sum(len(d) for d in members.values())
    return Upload(name, buffer.getvalue(), f"{note}; {len(members)} entries, {expanded:,} bytes expanded")


def small_bomb() -> Upload:
    header, line = b"onset\tduration\ttrial_type\n", b"1.0\t0.5\tgo\n"
    rows, pad = divmod(MB - len(header), len(line))
    body = header + line * (rows - 1) + b"1.0" + b"0" * pad + b"\t0.5\tgo\n"  # a valid TSV of exactly 1 MiB
    members = {f"sub-{n:03d}/eeg/sub-{n:03d}_task-a_events.tsv": body for n in range(1, 191)}
    return zipped("bomb.zip", {"dataset_description.json": DESCRIPTION, **members}, "190 events files of 1 MiB")


def levels() -> Upload:
    sidecar = json.dumps({"code": {"Description": "The condition code.",
                                   "Levels": {f"c{n:06d}": f"Code {n}." for n in range(100_000)}}}).encode()
    events = "onset\tduration\tcode\n" + "".join(f"{n + 1}.0\t0.5\tc{n:06d}\n" for n in range(20))
    members = {"dataset_description.json": DESCRIPTION, "task-x_events.json": sidecar,
               "sub-01/sub-01_task-x_events.tsv": events.encode()}
    return zipped("levels.zip", members, f"sidecar of 100,000 Levels, {len(sidecar):,} bytes")


CASES: dict[str, Callable[[], Upload]] = {"big-tsv": big_tsv, "wide-tsv": wide_tsv, "small-bomb": small_bomb,
                                          "levels": levels}


@dataclass
class Answer:
    status: int | None  # None: no HTTP answer (timeout, connection closed); text says why
    text: str
    seconds: float

    def message(self) -> str:
        return self.text if self.status is None else f"{self.status} {' '.join(self.text.split())[:100]}"


def request(port: int, method: str, path: str, headers: dict[str, str], timeout: float,
            body: bytes | None = None) -> Answer:
    """One request on loopback, bounded by *timeout* for the whole answer (not only each read)."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers)
        response, chunks = conn.getresponse(), []
        while chunk := response.read(65536):
            chunks.append(chunk)
            if time.monotonic() - start > timeout:
                raise TimeoutError
        return Answer(response.status, b"".join(chunks).decode("utf-8", "replace"), time.monotonic() - start)
    except TimeoutError:
        return Answer(None, f"no answer within {timeout:g} s", time.monotonic() - start)
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, f"no answer: {type(exc).__name__}", time.monotonic() - start)
    finally:
        conn.close()


def rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError, StopIteration):
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        return int(next(x for x in lines if x.startswith("VmRSS:")).split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return float("nan")


def disk_bytes(root: Path, pid: int) -> int:
    """Bytes under *root*, plus files under it the server deleted but holds open (SQLite's temporary files)."""
    total = 0
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):
            total += 0 if path.is_dir() else path.lstat().st_blocks * 512
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = str(fd.readlink())
                if target.startswith(str(root)) and target.endswith(" (deleted)"):
                    total += fd.stat().st_blocks * 512
    return total


class Sampler(threading.Thread):
    """The server's peak RSS (kB) every 20 ms and its temporary directory's size: past DISK_LIMIT it dies."""

    def __init__(self, process: subprocess.Popen, root: Path) -> None:
        super().__init__(daemon=True)
        self.process, self.root, self.done, self.lock = process, root, threading.Event(), threading.Lock()
        self.peak_kb, self.peak_disk, self.disk_hit = 0, 0, False

    def mark(self) -> None:
        with self.lock:
            self.peak_kb, self.peak_disk = rss_kb(self.process.pid), 0

    def run(self) -> None:
        tick = 0
        while not self.done.wait(0.02) and self.process.poll() is None:
            tick += 1
            disk = disk_bytes(self.root, self.process.pid) if tick % 5 == 0 else 0
            with self.lock:
                self.peak_kb, self.peak_disk = max(self.peak_kb, rss_kb(self.process.pid)), max(self.peak_disk, disk)
            if disk > DISK_LIMIT:
                self.disk_hit = True
                self.process.kill()
                print(f"  disk limit hit: {disk / MB:,.0f} MB in the temporary directory; server killed")


class Bench:
    def __init__(self, timeout: float) -> None:
        self.timeout, self.misses = timeout, 0
        self.root = Path(tempfile.mkdtemp(prefix="hedit-uploads-"))
        (self.root / "tmp").mkdir()
        # Upload limits pass through (to measure what a raised limit costs); every other setting is the bench's.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("HEDIT_", "DATABASE_", "DJANGO_")) or k.startswith("HEDIT_UPLOAD_MAX_")}
        self.env.update({
            "DJANGO_SETTINGS_MODULE": "hedit_site.settings", "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(40), "DATABASE_URL": f"sqlite:///{self.root / 'db.sqlite3'}",
            "HEDIT_STATE_DIR": str(self.root / "state"), "HEDIT_MEDIA_ROOT": str(self.root / "media"),
            "HEDIT_TASK_BACKEND": "thread", "HEDIT_LOG_LEVEL": "WARNING", "HEDIT_DATASET_RATE": "none",
            "SQLITE_TMPDIR": str(self.root / "tmp"), "TMPDIR": str(self.root / "tmp"), "PYTHONUNBUFFERED": "1"})
        self.process: subprocess.Popen | None = None
        self.sampler: Sampler | None = None
        self.port, self.idle_kb = 0, 0
        self.token = self.cookie = ""

    def setup(self) -> None:
        out = ""
        for args in (["migrate", "--noinput"], ["shell", "-c", SETUP_USER]):
            done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                                  text=True, timeout=300, check=False)
            if done.returncode:
                raise RuntimeError(f"manage.py {args[0]} failed: {done.stderr.strip()[-300:]}")
            out = done.stdout
        cred = json.loads(out[out.index("CRED ") + 5:].splitlines()[0])
        self.token, self.cookie = cred["token"], f"sessionid={cred['session']}"

    def start(self) -> None:
        """A fresh server, idle after its start-up and a tiny upload with its pages: its RSS is the baseline."""
        self.stop()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        log_path = self.root / "server.log"
        with log_path.open("ab") as log:
            offset = log.tell()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), APP],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 90
        while f"Listening on TCP address 127.0.0.1:{self.port}".encode() not in log_path.read_bytes()[offset:]:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not listen:\n{self.log_tail()}")
            time.sleep(0.2)
        self.sampler = Sampler(self.process, self.root)
        self.sampler.start()
        self.settle()  # the server warms hedtools up in a thread as it starts; a request meanwhile can fail
        warm = self.post(Upload("sub-01_task-warm_events.tsv", b"onset\tduration\tcue\n1.0\t0.5\tgo\n", ""))
        if warm.status != 201:
            raise RuntimeError(f"the warm-up upload failed: {warm.message()}\n{self.log_tail()}")
        for path, headers in self.views(json.loads(warm.text)["id"]):
            request(self.port, "GET", path, headers, self.timeout)
        self.settle()
        self.idle_kb = rss_kb(self.process.pid)

    def settle(self, limit: float = 60) -> None:
        """Wait (bounded) until the server uses under 5% of a CPU over half a second."""
        assert self.process
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.process.poll() is None:
            before = cpu_seconds(self.process.pid)
            time.sleep(0.5)
            if cpu_seconds(self.process.pid) - before < 0.025:
                return

    def log_tail(self, count: int = 5) -> str:
        lines = (self.root / "server.log").read_text(errors="replace").splitlines()
        lines = [x for x in lines if not x.startswith((" ", "Traceback", "127.0.0.1:", "During handling"))]
        return "\n".join(lines[-count:])

    def stop(self) -> None:
        if self.sampler:
            self.sampler.done.set()
            self.sampler.join(timeout=5)
        if self.process:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
            self.process.kill()  # nothing if it stopped
            self.process.wait(timeout=10)
        self.process = self.sampler = None

    def stored(self, name: str) -> str | None:
        """The newest project called *name* in the database (read-only), whether or not its upload answered."""
        with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(
                f"file:{self.root / 'db.sqlite3'}?mode=ro", uri=True, timeout=10)) as db:
            row = db.execute("SELECT id FROM annotations_datasetproject WHERE name = ? ORDER BY created_at DESC",
                             (name,)).fetchone()
            return str(uuid.UUID(row[0])) if row else None
        return None

    def views(self, pk: str) -> list[tuple[str, dict[str, str]]]:
        return [(f"/datasets/{pk}/", {"Cookie": self.cookie}),
                (f"/api/datasets/{pk}/", {"Authorization": f"Token {self.token}"})]

    def post(self, upload: Upload) -> Answer:
        boundary = "hedit-bench-" + secrets.token_hex(8)
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{upload.filename}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n").encode() + upload.data
        body += f"\r\n--{boundary}--\r\n".encode()
        headers = {"Authorization": f"Token {self.token}", "Content-Type": f"multipart/form-data; boundary={boundary}"}
        return request(self.port, "POST", "/api/datasets/", headers, self.timeout, body)

    def measured(self, label: str, call: Callable[[], Answer], target_s: float | None, size: int = 0) -> Answer:
        """Run *call* while sampling; print its answer, time, CPU and RSS beside the targets.

        An upload (*size* given) meets its time target with a 2xx or 4xx in time, a page only with a 200.
        """
        assert self.process and self.sampler
        pid, idle = self.process.pid, self.idle_kb
        self.sampler.mark()
        cpu = cpu_seconds(pid)
        answer = call()
        cpu = cpu_seconds(pid) - cpu
        growth = max(0, self.sampler.peak_kb - idle) * 1024
        timing = f"wall {answer.seconds:.2f} s, server CPU " + (f"{cpu:.1f} s" if cpu == cpu else "n/a (killed)")
        if target_s is not None:
            fine = answer.status in ({200} if not size else {*range(200, 300), *range(400, 500)})
            timing += self.verdict(fine and answer.seconds <= target_s,
                                   f"{'2xx/4xx' if size else '200'} within {target_s:g} s")
        rss = f"RSS idle {idle / 1024:,.0f} MB, peak +{growth / MB:,.1f} MB"
        if size:
            rss += f" = {growth / size:.1f}x the input{self.verdict(growth <= RSS_TARGET_X * size, '<= 3x')}"
        print(f"  {label:<7}{answer.message()}\n  {'':<7}{timing}\n  {'':<7}{rss}; "
              f"temp dir peak {self.sampler.peak_disk / MB:,.0f} MB")
        if answer.status and answer.status >= 500:
            print(f"  {'':<7}server log: {self.log_tail(1)[:200]}")
        if self.sampler.disk_hit:
            print(f"  {'':<7}target missed: disk limit hit (temporary directory over {DISK_LIMIT // MB:,} MB)")
            self.misses += 1
        return answer

    def verdict(self, fine: bool, target: str) -> str:
        self.misses += not fine
        return f"   [target {target}: {'ok' if fine else 'MISSED'}]"

    def run_case(self, name: str) -> None:
        upload = CASES[name]()
        print(f"\n== {name}: {upload.filename}, {len(upload.data):,} bytes ({upload.note})", flush=True)
        self.start()
        answer = self.measured("upload", lambda: self.post(upload), ANSWER_TARGET_S, len(upload.data))
        pk = json.loads(answer.text)["id"] if answer.status == 201 else None
        if name == "levels" and answer.status is None and (pk := self.stored(upload.filename)):
            print("  (no answer, but the project was stored: its pages are timed all the same)")
        if name == "levels" and pk:
            for (path, headers), label, target in zip(self.views(pk), ("page", "api"), (PAGE_TARGET_S, None),
                                                      strict=True):
                if self.process is None or self.process.poll() is not None or (self.sampler and self.sampler.disk_hit):
                    print("  (the server died: a fresh one for the next request)")
                    self.start()
                self.measured(label, lambda p=path, h=headers: request(self.port, "GET", p, h, self.timeout), target)
        self.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--only", choices=list(CASES), help="run one case")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request (default 60)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    bench = Bench(args.timeout)
    try:
        bench.setup()
        for name in [args.only] if args.only else list(CASES):
            bench.run_case(name)
    except KeyboardInterrupt:
        print("\ninterrupted")
        return 130
    except Exception as exc:
        print(f"error: {type(exc).__name__}: {exc}")
        return 2
    finally:
        bench.stop()
        shutil.rmtree(bench.root, ignore_errors=True)
    print(f"\nmissed targets: {bench.misses}")
    return 1 if bench.misses else 0


if __name__ == "__main__":
    sys.exit(main())
