"""Command-line start-up: `manage.py annotate` and `manage.py validate` beside hedtools' own `hedpy`.

    .venv/bin/python benchmarks/cli_startup.py            # 5 runs each, medians
    .venv/bin/python benchmarks/cli_startup.py --runs 9

Each command runs as a whole new process (imports, Django set-up, the schema, the work) on a
temporary SQLite database migrated once beforehand; the figure is wall time from start to exit.
Prints minimum, median and maximum per command and exits 1 when the `annotate` median is over the
target (3 s, issue 20).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 3.0
SCHEMA = "8.4.0"


def timed(command: list[str], env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):  # validate exits 1 for an invalid string; neither is a failure here
            raise RuntimeError(f"{' '.join(command[:3])} failed: {done.stderr.strip()[-300:]}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hedit-cli-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEDIT_", "DATABASE_", "DJANGO_"))}
    env.update({"DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}", "HEDIT_STATE_DIR": str(work / "state"),
                "DJANGO_DEBUG": "0"})
    python, hedpy = sys.executable, str(Path(sys.executable).with_name("hedpy"))
    try:
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True,
                       timeout=300)
        cases = {
            'manage.py annotate "A red circle appears." --json':
                [python, "manage.py", "annotate", "A red circle appears.", "--json", "--schema", SCHEMA],
            'manage.py validate "Sensory-event, (Red, Circle)"':
                [python, "manage.py", "validate", "Sensory-event, (Red, Circle)", "--schema", SCHEMA],
            'hedpy validate string "Sensory-event, (Red, Circle)"':
                [hedpy, "validate", "string", "Sensory-event, (Red, Circle)", "-sv", SCHEMA],
        }
        medians = {}
        print(f"{'command':56} {'min':>7} {'median':>7} {'max':>7}   ({args.runs} runs, wall seconds)")
        for label, command in cases.items():
            times = timed(command, env, args.runs)
            medians[label] = statistics.median(times)
            print(f"{label:56} {min(times):7.2f} {medians[label]:7.2f} {max(times):7.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    annotate = next(v for k, v in medians.items() if "annotate" in k)
    verdict = "ok" if annotate <= TARGET_S else "MISSED"
    print(f"\nannotate median {annotate:.2f} s (target <= {TARGET_S:.0f} s): {verdict}")
    return 0 if annotate <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
