"""Bursts against one project while another user works: downloads after an edit, and a burst of answers.

Builds a synthetic BIDS dataset (one task, ``--files`` events files of ``--rows`` rows, two categorical
columns, made-up names), imports it for the lab user with every level annotated, and serves the app with
daphne on loopback (embedded mode: the runs' thread pool and the validation pool live in daphne's process).

``--mode download``: 16 parallel downloads (half the zip, half the task's sidecar as JSON) of a project whose
annotations have no validated sidecar yet (as after an edit), while another user loads her project's page in a
bounded loop. Reports the downloads' status and time, the other page's p50/p95/max and the peak RSS of daphne
with every child (the validation processes). Targets: every download 200, RSS under 1 GB, page max under 1 s.

``--mode answer``: the lab answers every level's question through the API in a burst, then another user starts
a single run (a scripted model endpoint answers every call after ``--delay`` s). Reports how long her run
took from its creation to its end, how long until the project is done and its sidecar answers 200, and how
many validations of the task the burst cost (the lab polls the project, not the sidecar, meanwhile).
Targets: her run under 5 s, one validation.

    .venv/bin/python benchmarks/burst.py --mode download [--files 80 --rows 400 --downloads 16]
    .venv/bin/python benchmarks/burst.py --mode answer [--delay 0.3] [--no-answers]

Exits 1 if a target is missed. The last line holds the figures.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dataset_concurrency import Browser, scripted_reply, setup_django, start_server  # noqa: E402
from tests.support.fake_openai import FakeOpenAI  # noqa: E402
from tests.support.processes import stop  # noqa: E402

SHAPES = ["square", "circle", "triangle", "star", "cross", "ring", "arrow", "wave"]
SIDES = ["upper", "lower"]
HED = "Sensory-event, Visual-presentation"
PAGE_LOOP_MAX = 3000
IDLE_PAGES = 40
TIMEOUT = 300.0


def make_dataset(root: Path, files: int, rows: int) -> Path:
    root.mkdir(parents=True)
    (root / "dataset_description.json").write_text(json.dumps(
        {"Name": "burst", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}), encoding="utf-8")
    sidecar = {"shape": {"Description": "The shape shown.", "Levels": {s: f"A {s} appears." for s in SHAPES}},
               "side": {"Description": "Where it is.", "Levels": {s: f"It is in the {s} half." for s in SIDES}}}
    (root / "task-shapes_events.json").write_text(json.dumps(sidecar), encoding="utf-8")
    for n in range(files):
        folder = root / f"sub-{n + 1:03d}" / "eeg"
        folder.mkdir(parents=True)
        lines = ["onset\tduration\tshape\tside"]
        lines += [f"{1.5 * r + 1:.1f}\t0.5\t{SHAPES[r % len(SHAPES)]}\t{SIDES[r % 2]}" for r in range(rows)]
        (folder / f"sub-{n + 1:03d}_task-shapes_events.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def annotated_project(user: object, folder: Path, name: str) -> object:
    from annotations.datasets import services
    from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
    from bidsdata.archive import read_folder

    project = services.import_dataset(user=user, files=read_folder(folder), name=name)
    levels = list(DatasetLevel.objects.filter(column__task__project=project))
    for session in services.create_level_sessions(project, levels, user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation=HED, machine_annotation=HED)
    return project


def tree_rss(pid: int) -> int:
    """Resident bytes of *pid* and every descendant (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(stat[1]), []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Sampler(threading.Thread):
    """Peak RSS of the server's process tree, sampled every 50 ms until stopped."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.halt = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.05):
            self.peak = max(self.peak, tree_rss(self.pid))


def page_loop(browser: Browser, path: str, stop_event: threading.Event, times: list[float]) -> None:
    for _ in range(PAGE_LOOP_MAX):
        if stop_event.is_set():
            return
        start = time.perf_counter()
        status, _ = browser.get(path)
        times.append(time.perf_counter() - start)
        assert status == 200, status


def fetch(browser: Browser, path: str) -> tuple[int, float, int]:
    start = time.perf_counter()
    request = urllib.request.Request(browser.base + path, headers={"Cookie": browser.session_cookie})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            size = len(response.read())
            return response.status, time.perf_counter() - start, size
    except urllib.error.HTTPError as exc:
        return exc.code, time.perf_counter() - start, 0
    except OSError:
        return 0, time.perf_counter() - start, 0


def download_mode(args: argparse.Namespace, workdir: Path, env: dict[str, str]) -> bool:
    from django.contrib.auth.models import User

    lab = User.objects.create_user("lab", password="pw-lab-12345")
    other = User.objects.create_user("other", password="pw-other-12345")
    project = annotated_project(lab, make_dataset(workdir / "big", args.files, args.rows), "big")
    mine = annotated_project(other, make_dataset(workdir / "small", 2, 20), "small")
    task = project.tasks.get().name
    proc, base, log = start_server(env, "http://127.0.0.1:9", workdir)
    try:
        lab_browser, other_browser = Browser(base, lab), Browser(base, other)
        other_browser.get(f"/datasets/{mine.pk}/")  # warm
        quiet: list[float] = []
        for _ in range(IDLE_PAGES):  # her page with nothing else running: this machine's own baseline
            start = time.perf_counter()
            other_browser.get(f"/datasets/{mine.pk}/")
            quiet.append(time.perf_counter() - start)
        quiet.sort()
        idle = tree_rss(proc.pid)
        sampler = Sampler(proc.pid)
        sampler.start()
        page_times: list[float] = []
        done = threading.Event()
        pager = threading.Thread(target=page_loop, args=(other_browser, f"/datasets/{mine.pk}/", done, page_times))
        pager.start()
        paths = [f"/datasets/{project.pk}/download/" if n % 2 else
                 f"/datasets/{project.pk}/tasks/{task}/sidecar/?format=json" for n in range(args.downloads)]
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.downloads) as pool:
            got = list(pool.map(lambda p: fetch(lab_browser, p), paths))
        wall = time.perf_counter() - start
        done.set()
        pager.join()
        sampler.halt.set()
        sampler.join()
    finally:
        stop(proc)
    ok = sum(1 for status, _, _ in got if status == 200)
    times = sorted(t for _, t, _ in got)
    page = sorted(page_times)
    p95 = page[int(0.95 * (len(page) - 1))] if page else float("nan")
    figures = {"files": args.files, "rows": args.rows, "downloads": args.downloads, "ok": ok,
               "download_s_min": round(times[0], 2), "download_s_max": round(times[-1], 2), "wall_s": round(wall, 2),
               "rss_idle_mb": round(idle / 2**20), "rss_peak_mb": round(sampler.peak / 2**20),
               "quiet_page_p50_ms": round(1000 * statistics.median(quiet)),
               "quiet_page_max_ms": round(1000 * quiet[-1]), "page_n": len(page),
               "page_p50_ms": round(1000 * statistics.median(page)) if page else None,
               "page_p95_ms": round(1000 * p95), "page_max_ms": round(1000 * page[-1]) if page else None,
               "validation_workers": os.environ.get("HEDIT_VALIDATION_WORKERS", "0 (cores)"),
               "validations_logged": log.read_text().count("bidsdata.validation: validating ")}
    print(json.dumps(figures))
    if ok != args.downloads:
        print(log.read_text()[-2000:], file=sys.stderr)
    return ok == args.downloads and sampler.peak < 2**30 and bool(page) and page[-1] < 1.0


def answer_mode(args: argparse.Namespace, workdir: Path, env: dict[str, str]) -> bool:
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from annotations.models import DatasetLevel

    lab = User.objects.create_user("lab", password="pw-lab-12345")
    other = User.objects.create_user("other", password="pw-other-12345")
    project = annotated_project(lab, make_dataset(workdir / "big", args.files, args.rows), "big")
    levels = list(DatasetLevel.objects.filter(column__task__project=project).values_list("pk", flat=True))
    lab_token, other_token = Token.objects.create(user=lab).key, Token.objects.create(user=other).key
    with FakeOpenAI([scripted_reply(args.delay)]) as llm:
        proc, base, log = start_server(env, llm.base_url, workdir)
        try:
            def call(method: str, path: str, token: str, body: dict | None = None) -> tuple[int, dict]:
                data = json.dumps(body).encode() if body is not None else None
                request = urllib.request.Request(base + path, data=data, method=method, headers={
                    "Authorization": f"Token {token}", "Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                        return response.status, json.loads(response.read() or b"{}")
                except urllib.error.HTTPError as exc:
                    return exc.code, {}

            start = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                statuses = list(pool.map(lambda pk: call("POST", f"/api/datasets/{project.pk}/questions/", lab_token,
                                                         {"level_id": pk, "answer": f"What level {pk} means."})[0],
                                         levels if not args.no_answers else []))
            burst = time.perf_counter() - start
            created = time.perf_counter()
            status, body = call("POST", "/api/sessions/", other_token, {"description": "A red square appears."})
            assert status in (200, 201, 202), (status, body)
            session_id, state = body["id"], body.get("status")
            deadline = created + TIMEOUT
            while state not in ("succeeded", "invalid", "failed", "cancelled") and time.perf_counter() < deadline:
                time.sleep(0.05)
                state = call("GET", f"/api/sessions/{session_id}/", other_token)[1].get("status")
            other_run = time.perf_counter() - created
            settled = time.perf_counter()
            deadline = settled + (TIMEOUT if statuses else 0)  # the baseline answered nothing: nothing to wait for
            # The project page's poll (not the sidecar's, which asks for each intermediate state it sees).
            while call("GET", f"/api/datasets/{project.pk}/", lab_token)[1].get("status") != "done" and \
                    time.perf_counter() < deadline:
                time.sleep(0.5)
            while time.perf_counter() < deadline:
                detail = call("GET", f"/api/datasets/{project.pk}/sidecar/", lab_token)[0]
                if detail == 200:
                    break
                time.sleep(0.2)
            sidecar_after = time.perf_counter() - settled
        finally:
            stop(proc)
    text = log.read_text()
    figures = {"answers": len(statuses), "accepted": sum(1 for s in statuses if s == 202), "burst_s": round(burst, 2),
               "other_run_s": round(other_run, 2), "other_run_status": state,
               "sidecar_200_after_s": round(sidecar_after, 2), "model_delay_s": args.delay,
               "validations_logged": text.count("bidsdata.validation: validating ")}
    print(json.dumps(figures))
    return (figures["accepted"] == len(statuses) and other_run < 5.0 and state == "succeeded"
            and figures["validations_logged"] == (1 if statuses else 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("download", "answer"), required=True)
    parser.add_argument("--files", type=int, default=80)
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--downloads", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--no-answers", action="store_true", help="answer mode's baseline: her run alone")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="hedit-burst-"))
    try:
        env = setup_django(workdir)
        env["HEDIT_LOG_LEVEL"] = "INFO"  # the validation module logs each validation it starts
        met = download_mode(args, workdir, env) if args.mode == "download" else answer_mode(args, workdir, env)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
