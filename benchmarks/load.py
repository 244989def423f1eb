"""Bounded load test: runs created through the API while watchers follow them live and people browse history.

    .venv/bin/python benchmarks/load.py --mode embedded --rate 5 --seconds 30 --watchers 50
    .venv/bin/python benchmarks/load.py --mode scaleout --rate 10 --seconds 30 --watchers 50

Starts its own servers on loopback (see ``loadstack``), then for *seconds*: creates *rate* runs a second
with ``POST /api/sessions/`` (open loop: a slow answer does not slow the schedule), keeps *watchers*
websockets on the newest runs' ``/ws/sessions/<uuid>/`` reading their steps until each run ends, and
has two readers GET the history page. Afterwards it waits (bounded) for every run to finish. The last
line is ``errors=N lost=N runs=N ws_connect_p95_ms=X history_p95_ms=Y create_p95_ms=Z``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadstack import Stack, dead_processes, running_stack
from loadwire import http_request, ws_connect

logger = logging.getLogger("load")

DESCRIPTIONS = [
    "A red circle appears on the left side of the screen.",
    "A 500 Hz tone plays for 200 ms.",
    "The participant presses the left button with the index finger.",
    "A green square flashes at the centre of the screen.",
    "A fixation cross is shown until the participant responds.",
    "A face image appears above fixation for one second.",
    "The screen turns black and a beep sounds.",
    "A blue triangle moves from left to right across the screen.",
]
FINISHED = ("succeeded", "invalid", "failed", "cancelled")
STATUS_RE = re.compile(r'data-status="(\w+)"')
WATCH_LIMIT_S = 20.0
HISTORY_READERS = 2


@dataclass
class Tally:
    errors: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    create_ms: list[float] = field(default_factory=list)
    ws_connect_ms: list[float] = field(default_factory=list)
    ws_first_ms: list[float] = field(default_factory=list)
    history_ms: list[float] = field(default_factory=list)
    watched: int = 0
    watched_to_end: int = 0
    ws_messages: int = 0

    def error(self, what: str) -> None:
        self.errors.append(what)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


async def create_one(stack: Stack, n: int, tally: Tally) -> None:
    started = time.monotonic()
    try:
        response = await http_request(stack.port, "POST", "/api/sessions/", timeout=60,
                                      headers={"Authorization": f"Token {stack.token}"},
                                      json_body={"description": f"{DESCRIPTIONS[n % len(DESCRIPTIONS)]} (#{n})"})
    except (TimeoutError, OSError, ValueError) as exc:
        tally.error(f"create: {type(exc).__name__}")
        return
    tally.create_ms.append((time.monotonic() - started) * 1000)
    if response.status != 201:
        tally.error(f"create: HTTP {response.status}")
        return
    tally.created.append(response.json()["id"])


async def creator(stack: Stack, rate: float, seconds: float, tally: Tally) -> None:
    total = int(rate * seconds)
    start = time.monotonic()
    pending: set[asyncio.Task] = set()
    for n in range(total):
        delay = start + n / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(create_one(stack, n, tally))
        pending.add(task)
        task.add_done_callback(pending.discard)
    if pending:
        await asyncio.wait(pending, timeout=90)


async def watch_one(stack: Stack, session_id: str, tally: Tally) -> None:
    started = time.monotonic()
    try:
        ws = await ws_connect(stack.port, f"/ws/sessions/{session_id}/?after=0", cookie=stack.cookie, timeout=10)
    except (TimeoutError, OSError, ConnectionError, ValueError, asyncio.IncompleteReadError) as exc:
        tally.error(f"ws connect: {type(exc).__name__}: {exc}")
        return
    tally.ws_connect_ms.append((time.monotonic() - started) * 1000)
    tally.watched += 1
    deadline = time.monotonic() + WATCH_LIMIT_S
    first = True
    try:
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await ws.receive(timeout=left)
            except TimeoutError:
                break  # a run still queued behind the backlog: not an error, the watcher moves on
            if message is None:
                if ws.close_code not in (1000, 1001):
                    tally.error(f"ws closed by server: {ws.close_code}")
                break
            if first:
                tally.ws_first_ms.append((time.monotonic() - started) * 1000)
                first = False
            tally.ws_messages += 1
            status = STATUS_RE.search(message)
            if status and status.group(1) in FINISHED:
                tally.watched_to_end += 1
                break
    except (OSError, asyncio.IncompleteReadError) as exc:
        tally.error(f"ws read: {type(exc).__name__}")
    finally:
        await ws.close()


async def watcher(stack: Stack, index: int, until: float, tally: Tally) -> None:
    # Each watcher takes the newest run not yet taken, so the watchers spread over live runs.
    seen = 0
    for _ in range(100_000):
        if time.monotonic() >= until:
            return
        if len(tally.created) <= seen:
            await asyncio.sleep(0.05)
            continue
        seen = len(tally.created)
        await watch_one(stack, tally.created[(seen - 1 - index) % seen], tally)


async def history_reader(stack: Stack, until: float, tally: Tally) -> None:
    for _ in range(100_000):
        if time.monotonic() >= until:
            return
        started = time.monotonic()
        try:
            response = await http_request(stack.port, "GET", "/sessions/", headers={"Cookie": stack.cookie},
                                          timeout=30)
        except (TimeoutError, OSError, ValueError) as exc:
            tally.error(f"history: {type(exc).__name__}")
            continue
        tally.history_ms.append((time.monotonic() - started) * 1000)
        if response.status != 200:
            tally.error(f"history: HTTP {response.status}")
        await asyncio.sleep(0.25)


async def statuses(stack: Stack) -> dict[str, str]:
    """Every run's status, through the API's list (500 a page, bounded pages)."""
    found: dict[str, str] = {}
    for page in range(1, 200):
        response = await http_request(stack.port, "GET", f"/api/sessions/?page_size=500&page={page}",
                                      headers={"Authorization": f"Token {stack.token}"}, timeout=60)
        if response.status != 200:
            break
        body = response.json()
        found.update({row["id"]: row["status"] for row in body["results"]})
        if not body.get("next"):
            break
    return found


async def wait_finished(stack: Stack, tally: Tally, timeout: float) -> tuple[dict[str, str], float]:
    started = time.monotonic()
    found: dict[str, str] = {}
    while time.monotonic() - started < timeout:
        try:
            found = await statuses(stack)
        except (TimeoutError, OSError, ValueError):
            found = {}
        if tally.created and all(found.get(pk) in FINISHED for pk in tally.created):
            break
        await asyncio.sleep(2)
    return found, time.monotonic() - started


async def warm_up(stack: Stack) -> None:
    """One run and one history page before the clock starts: schema loading and imports are paid once."""
    scratch = Tally()
    # The server loads the HED schema on a thread as it starts; validating waits for that to finish.
    await http_request(stack.port, "POST", "/api/validate/", headers={"Authorization": f"Token {stack.token}"},
                       json_body={"hed": "Sensory-event"}, timeout=120)
    await create_one(stack, 0, scratch)
    await history_reader(stack, time.monotonic() + 0.1, scratch)
    if scratch.errors or not scratch.created:
        raise RuntimeError(f"warm-up failed: {scratch.errors}")
    await wait_finished(stack, scratch, 180)


async def drive(stack: Stack, args: argparse.Namespace) -> tuple[Tally, dict[str, str], float]:
    await warm_up(stack)
    tally = Tally()
    until = time.monotonic() + args.seconds
    tasks = [creator(stack, args.rate, args.seconds, tally)]
    tasks += [watcher(stack, i, until, tally) for i in range(args.watchers)]
    tasks += [history_reader(stack, until, tally) for _ in range(HISTORY_READERS)]
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=args.seconds + 120)
    found, waited = await wait_finished(stack, tally, args.finish_timeout)
    return tally, found, waited


def report(stack: Stack, args: argparse.Namespace, tally: Tally, found: dict[str, str], waited: float) -> None:
    lost = [pk for pk in tally.created if found.get(pk) not in FINISHED]
    unsuccessful = [pk for pk in tally.created if found.get(pk) in ("failed", "cancelled")]
    errors = tally.errors + [f"run ended {found[pk]}" for pk in unsuccessful]
    kinds: dict[str, int] = {}
    for e in errors:
        kinds[e] = kinds.get(e, 0) + 1
    dead = dead_processes(stack)
    print(f"mode={args.mode} rate={args.rate}/s seconds={args.seconds} watchers={args.watchers} web={args.web} "
          f"workers={' '.join(stack.worker_command[2:3]) or '-'}")
    print(f"created={len(tally.created)} finished_after_load_s={waited:.1f} dead_processes={dead or '-'}")
    print(f"create ms p50={percentile(tally.create_ms, 50):.0f} p95={percentile(tally.create_ms, 95):.0f} "
          f"n={len(tally.create_ms)}")
    print(f"ws connect ms p50={percentile(tally.ws_connect_ms, 50):.0f} "
          f"p95={percentile(tally.ws_connect_ms, 95):.0f} n={len(tally.ws_connect_ms)}; first message ms "
          f"p50={percentile(tally.ws_first_ms, 50):.0f} p95={percentile(tally.ws_first_ms, 95):.0f}")
    print(f"watched={tally.watched} to_end={tally.watched_to_end} messages={tally.ws_messages}")
    print(f"history ms p50={percentile(tally.history_ms, 50):.0f} p95={percentile(tally.history_ms, 95):.0f} "
          f"n={len(tally.history_ms)}")
    for what, count in sorted(kinds.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  error x{count}: {what}")
    print(f"errors={len(errors)} lost={len(lost)} runs={len(tally.created)} "
          f"ws_connect_p95_ms={percentile(tally.ws_connect_ms, 95):.0f} "
          f"history_p95_ms={percentile(tally.history_ms, 95):.0f} "
          f"create_p95_ms={percentile(tally.create_ms, 95):.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["embedded", "scaleout"], default="embedded")
    parser.add_argument("--rate", type=float, default=5, help="runs created per second")
    parser.add_argument("--seconds", type=float, default=30, help="how long to create runs")
    parser.add_argument("--watchers", type=int, default=50, help="websocket watchers at once")
    parser.add_argument("--workers", type=int, default=2, help="scale-out workers")
    parser.add_argument("--web", type=int, default=None,
                        help="web (daphne) processes sharing the port; scale-out only (default 2 there, 1 embedded)")
    parser.add_argument("--finish-timeout", type=float, default=600, help="seconds to wait for runs to finish")
    args = parser.parse_args()
    if not (0 < args.rate <= 100 and 0 < args.seconds <= 600 and 0 <= args.watchers <= 500):
        parser.error("rate must be in (0, 100], seconds in (0, 600], watchers in [0, 500]")
    if args.web is None:
        args.web = 2 if args.mode == "scaleout" else 1
    if not 1 <= args.web <= 8 or (args.mode == "embedded" and args.web != 1):
        parser.error("--web must be 1 in embedded mode (its runs and channel layer live in that process), "
                     "1-8 in scale-out")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    with running_stack(args.mode, workers=args.workers, web=args.web) as stack:
        logger.info("serving on 127.0.0.1:%d (%s); load for %.0f s", stack.port, args.mode, args.seconds)
        tally, found, waited = asyncio.run(drive(stack, args))
        report(stack, args, tally, found, waited)
    return 0


if __name__ == "__main__":
    sys.exit(main())
