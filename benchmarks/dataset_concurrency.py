"""Does a dataset job's concurrency pay off, and does the web stay responsive while it runs?

Builds a synthetic BIDS dataset (one task, categorical columns, ``--levels`` levels), starts a scripted
OpenAI-compatible endpoint on loopback that answers every call after ``--delay`` seconds, and serves the
app with daphne in a child process (embedded mode: the job runs on daphne's own event loop, as in
production) pointed at that endpoint with ``HEDIT_LLM_BASE_URL``. It then starts "Annotate all" through
the page's own POST, once on a project with concurrency 1 and once on one with concurrency 4, and
measures each job's wall time (from the POST to the project's ``done``). While the concurrency-4 job
runs, a logged-in user loads the history page (``GET /sessions/``) over HTTP in a bounded loop; its
p95 is reported.

    .venv/bin/python benchmarks/dataset_concurrency.py [--levels 16] [--delay 1.0] [--keep]

Targets: concurrency 4 at least 3x faster than 1 (4x is the limit), history p95 under 150 ms.
Exits 1 if either misses. The last line holds the figures.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.fake_openai import FakeOpenAI, Recorded, Reply  # noqa: E402
from tests.support.processes import free_port, stop  # noqa: E402

STIMULI = ["face", "house", "car", "chair", "dog", "tree", "flower", "bird", "cup", "shoe", "clock", "lamp",
           "boat", "bicycle", "guitar", "apple", "key", "hat", "fish", "cloud", "star", "bell", "book", "door"]
RESPONSES = ["left", "right", "none", "both"]
ANNOTATION = "Sensory-event, Visual-presentation, (Image, Face)"
VERDICT = json.dumps({"faithful": True, "feedback": "The annotation covers the event."})
IDLE_REQUESTS = 100  # the history page with no job running: the machine's own baseline
HISTORY_REQUESTS_MAX = 2000  # the history loop's bound, whatever the job does
SERVER_START_TIMEOUT = 90.0
JOB_TIMEOUT = 600.0
# --shared-ssl-context: what-if experiment. Every run builds its own AsyncOpenAI client, whose httpx transport
# builds a new ssl.SSLContext (loading the CA bundle: ~70 ms of CPU on the event loop, even for http://).
# This launcher makes httpcore2 build one context per process and reuse it, to measure what that costs.
SHARED_SSL_LAUNCHER = """
import functools, sys
import httpcore2
httpcore2.default_ssl_context = functools.cache(httpcore2.default_ssl_context)
from daphne.cli import CommandLineInterface
CommandLineInterface().run(sys.argv[1:])
"""
# Three projects of the same dataset: the speedup compares c1 and c4 alone; the history page is loaded
# during a third job (c4 again), so its requests do not slow the c4 figure the speedup uses.
JOBS = {"c1": 1, "c4": 4, "c4+history": 4}


def make_dataset(root: Path, levels: int) -> Path:
    """A BIDS folder whose one task has ``levels`` categorical levels over two columns, described, no HED."""
    responses = RESPONSES[:2] if levels <= 26 else RESPONSES
    stimuli = STIMULI[:max(1, levels - len(responses))]
    root.mkdir(parents=True)
    (root / "dataset_description.json").write_text(json.dumps(
        {"Name": "benchmark", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}), encoding="utf-8")
    sidecar = {
        "trial_type": {"Description": "The picture shown.",
                       "Levels": {s: f"A picture of a {s} appears at the centre of the screen." for s in stimuli}},
        "response": {"Description": "The button pressed.",
                     "Levels": {r: f"The participant responds with the {r} hand." for r in responses}},
    }
    (root / "task-pictures_events.json").write_text(json.dumps(sidecar, indent=2), encoding="utf-8")
    folder = root / "sub-01" / "eeg"
    folder.mkdir(parents=True)
    lines = ["onset\tduration\ttrial_type\tresponse"]
    lines += [f"{2.0 * n + 1:.1f}\t0.5\t{s}\t{responses[n % len(responses)]}" for n, s in enumerate(stimuli * 2)]
    (folder / "sub-01_task-pictures_events.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def scripted_reply(delay: float):
    """Every call waits *delay* seconds (the server is threaded, so calls overlap), then answers."""

    def reply(request: Recorded) -> Reply:
        time.sleep(delay)
        system = str(request.messages[0].get("content", "")) if request.messages else ""
        return Reply(text=ANNOTATION if "HED rules" in system else VERDICT)

    return reply


def setup_django(workdir: Path) -> dict[str, str]:
    """Settings for this process and the server: a fresh SQLite file, production-like, own state dir."""
    env = {
        "DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "hedit_site.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "benchmark-only-" + "x" * 40,
        "HEDIT_STATE_DIR": str(workdir / "state"),
        "HEDIT_MEDIA_ROOT": str(workdir / "media"),
        "HEDIT_LOG_LEVEL": "WARNING",
        "HEDIT_TASK_BACKEND": "thread",
        "HEDIT_RUN_RATE": "none",
        "HEDIT_DATASET_RATE": "none",
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


def import_projects(workdir: Path, levels: int) -> tuple[object, dict[str, object]]:
    from django.contrib.auth.models import User

    from annotations.datasets import services
    from bidsdata.archive import read_folder

    user = User.objects.create_user("bench", password="pw-bench-12345")
    folder = make_dataset(workdir / "dataset", levels)
    projects = {name: services.import_dataset(user=user, files=read_folder(folder), name=name, concurrency=c)
                for name, c in JOBS.items()}
    return user, projects


class Browser:
    """A logged-in HTTP client with cookies (sessionid, csrftoken) for the live server."""

    def __init__(self, base: str, user: object) -> None:
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(user)
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.session_cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"

    def get(self, path: str) -> tuple[int, str]:
        request = urllib.request.Request(self.base + path, headers={"Cookie": self.session_cookie})
        with self.opener.open(request, timeout=30) as response:
            return response.status, response.read().decode()

    def post_form(self, page: str, action: str) -> int:
        """Submit a form of *page* the way a browser does: its CSRF token, the cookie, a same-origin Referer."""
        _, html = self.get(page)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        csrf_cookie = next(c.value for c in self.jar if c.name == "csrftoken")
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(self.base + action, data=data, method="POST", headers={
            "Cookie": f"{self.session_cookie}; csrftoken={csrf_cookie}", "Referer": self.base + page})
        with self.opener.open(request, timeout=30) as response:
            return response.status


def start_server(env: dict[str, str], llm_url: str, workdir: Path, *, shared_ssl: bool = False,
                 ) -> tuple[subprocess.Popen, str, Path]:
    port = free_port()
    log = workdir / "daphne.log"
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("HEDIT_LLM_")}
    child_env.update(env)
    child_env.update({"HEDIT_LLM_BASE_URL": llm_url, "HEDIT_LLM_MODEL": "bench-model", "HEDIT_LLM_API_KEY": "k",
                      "HEDIT_LLM_MAX_RETRIES": "0", "HEDIT_LLM_TIMEOUT": "60",
                      "HEDIT_LLM_CACHE_TTL": "0",  # every level really calls the endpoint
                      "PYTHONUNBUFFERED": "1"})
    with log.open("wb") as out:
        start = ["-c", SHARED_SSL_LAUNCHER] if shared_ssl else ["-m", "daphne"]
        proc = subprocess.Popen([sys.executable, *start, "-b", "127.0.0.1", "-p", str(port),
                                 "hedit_site.asgi:application"], cwd=ROOT, env=child_env, stdout=out,
                                stderr=subprocess.STDOUT)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    import socket

    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"daphne exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}", log
        except OSError:
            time.sleep(0.1)
    stop(proc)
    raise SystemExit(f"daphne did not listen within {SERVER_START_TIMEOUT} s:\n{log.read_text()[-3000:]}")


def project_status(project_id: object) -> str:
    from django.db import close_old_connections

    from annotations.models import DatasetProject

    close_old_connections()
    return DatasetProject.objects.values_list("status", flat=True).get(pk=project_id)


def run_job(browser: Browser, project: object, *, history: list[float] | None = None) -> float:
    """POST "Annotate all" and wait for the project to be done; the history loop runs meanwhile if asked."""
    page = f"/datasets/{project.pk}/"
    done = threading.Event()

    def load_history() -> None:
        for _ in range(HISTORY_REQUESTS_MAX):
            if done.is_set():
                return
            t0 = time.perf_counter()
            status, _ = browser.get("/sessions/")
            history.append((time.perf_counter() - t0) * 1000)
            assert status == 200, status

    _, _ = browser.get(page)  # warm the page's templates before the clock starts
    loader = threading.Thread(target=load_history, daemon=True) if history is not None else None
    started = time.perf_counter()
    status = browser.post_form(page, f"/datasets/{project.pk}/annotate/")
    assert status == 200, status  # after the redirect to the project page
    if loader is not None:
        loader.start()
    deadline = started + JOB_TIMEOUT
    while project_status(project.pk) == "annotating":  # polling a child's job, 20 ms resolution
        if time.perf_counter() > deadline:
            raise SystemExit(f"the job of {project} did not finish in {JOB_TIMEOUT} s")
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    done.set()
    if loader is not None:
        loader.join(timeout=60)
    return elapsed


def outcome(project: object) -> dict[str, int]:
    from annotations.datasets.selectors import level_states, progress

    return progress(level_states(project))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=16)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds the endpoint takes per call")
    parser.add_argument("--profile", metavar="FILE", help="py-spy the server during one job (raw stacks)")
    parser.add_argument("--profile-job", choices=list(JOBS), default="c4+history", help="the job --profile records")
    parser.add_argument("--shared-ssl-context", action="store_true",
                        help="what-if: the server reuses one SSL context for every LLM client")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (database, server log)")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="hedit-dataset-bench-"))
    proc = None
    llm = FakeOpenAI([scripted_reply(args.delay)]).start()
    try:
        env = setup_django(workdir)
        user, projects = import_projects(workdir, args.levels)
        levels = outcome(projects["c1"])["total"]
        proc, base, _log = start_server(env, llm.base_url, workdir, shared_ssl=args.shared_ssl_context)
        browser = Browser(base, user)
        browser.get("/sessions/")  # warm-up
        idle = []
        for _ in range(IDLE_REQUESTS):
            t0 = time.perf_counter()
            browser.get("/sessions/")
            idle.append((time.perf_counter() - t0) * 1000)

        wall: dict[str, float] = {}
        calls: dict[str, int] = {}
        history: list[float] = []
        profiler = None
        for name, project in projects.items():
            loaded = name == "c4+history"
            if args.profile and name == args.profile_job:
                profiler = subprocess.Popen([str(Path(sys.executable).with_name("py-spy")), "record", "--pid",
                                             str(proc.pid), "--format", "raw", "--rate", "200", "--threads",
                                             "-o", args.profile], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.STDOUT)
            before = len(llm.chat_requests())
            wall[name] = run_job(browser, project, history=history if loaded else None)
            calls[name] = len(llm.chat_requests()) - before
            if profiler is not None:
                profiler.send_signal(2)  # SIGINT: py-spy writes its file and exits
                profiler.wait(timeout=60)
                profiler = None
        for name, project in projects.items():
            r = outcome(project)
            c = JOBS[name]
            floor = -(-levels // c) * (calls[name] / max(1, levels)) * args.delay
            print(f"{name:<11} {wall[name]:6.2f} s  (LLM-wait floor {floor:5.2f} s)  {r['done']}/{r['total']} "
                  f"levels done, {r['valid']} valid, {calls[name]} LLM calls, status {project_status(project.pk)}")
        print(f"history page, idle server: {len(idle)} requests, median {statistics.median(idle):.1f} ms, "
              f"p95 {p95(idle):.1f} ms")
        print(f"history page during the c4+history job: {len(history)} requests, median "
              f"{statistics.median(history) if history else float('nan'):.1f} ms, max "
              f"{max(history) if history else float('nan'):.1f} ms")
        c1, c4 = wall["c1"], wall["c4"]
        speedup = c1 / c4
        history_p95 = p95(history) if history else float("nan")
        ok = speedup >= 3.0 and bool(history) and history_p95 < 150 and all(
            outcome(p)["done"] == levels for p in projects.values())
        print(f"levels={levels} c1_s={c1:.2f} c4_s={c4:.2f} speedup={speedup:.2f} "
              f"history_p95_ms={history_p95:.1f} history_n={len(history)} c4_loaded_s={wall['c4+history']:.2f} "
              f"idle_p95_ms={p95(idle):.1f} {'OK' if ok else 'MISS'}")
        return 0 if ok else 1
    finally:
        if proc is not None:
            stop(proc)
        llm.stop()
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
