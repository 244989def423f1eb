"""Quality thresholds of the dataset job on the shared datasets (moved out of the test suite: minutes, not seconds).

Usage (from the project root):
    .venv/bin/python benchmarks/shared_datasets.py [--only NAME ...] [--timeout 900]

Builds its own SQLite database in a temporary folder (migrated first), so no developer database is touched,
and runs ``manage.py annotate_dataset`` as a lab would, in a subprocess per dataset:

* each curated dataset of ../shared/data/bids with every HED key removed from its sidecars: every level
  valid, no error issue, a sidecar written for each one given, at least one entry with HED, no LLM call,
  levels distinct >= 0.95 and rows passing hedtools' event check >= 0.95 per task;
* each real dataset named in REAL (no HED, no descriptions): the sidecar valid, rows with HED >= 0.95,
  rows passing >= 0.90, distinct >= 0.95, a question for each level nobody described; then the questions,
  answered and given back with ``--descriptions``, leave none open and the figures hold.

Prints one line per dataset and exits 1 when any condition fails (each failure named on its line).
The corpus-wide figures are ../shared/eval/score_corpus.py's; this checks the thresholds the suite held.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "bids"
REAL_ROOT = DATA.parent / "bids-real"
CURATED = ["eeg_ds003645s_hed_demo", "eeg_ds002893s_hed_attention_shift", "eeg_ds004106s_hed"]
REAL = ["ds005", "eeg_rishikesh"]


def strip_hed(source: Path, target: Path) -> Path:
    """A copy of *source* as a lab uploads it: sidecars without any HED key."""
    shutil.copytree(source, target)
    for path in target.glob("*_events.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, entry in list(data.items()):
            if isinstance(entry, dict):
                entry.pop("HED", None)
                if not entry:
                    del data[key]
        path.write_text(json.dumps(data), encoding="utf-8")
    return target


def annotate(env: dict[str, str], timeout: float, *args: str) -> tuple[int, dict | None, str]:
    """(exit code, the --json report or None, stderr's last line) of one run of the command."""
    cmd = [sys.executable, "manage.py", "annotate_dataset", *args, "--json"]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        report = None
    return run.returncode, report, (run.stderr.strip().splitlines() or [""])[-1]


def check_curated(name: str, work: Path, env: dict[str, str], timeout: float) -> list[str]:
    folder = strip_hed(DATA / name, work / name)
    out = work / f"{name}-out"
    code, report, err = annotate(env, timeout, str(folder), "--out", str(out))
    if report is None:
        return [f"no report (exit {code}): {err}"]
    failures = [] if code == 0 else [f"exit {code}"]
    if not report.get("dataset_id") or report.get("usage", {}).get("llm_calls") != 0:
        failures.append("no dataset id or an LLM call")
    written = sorted(p.name for p in out.iterdir()) if out.exists() else []
    if written != sorted(p.name for p in folder.glob("*_events.json")):
        failures.append(f"sidecars written: {written}")
    annotated = 0
    for task in report["tasks"]:
        figures, label = task["quality"], task["task"]
        if not task["levels_valid"] == task["levels_total"] > 0:
            failures.append(f"{label}: {task['levels_valid']}/{task['levels_total']} levels valid")
        if [i for i in task["issues"] if i["severity"] == "error"]:
            failures.append(f"{label}: error issues")
        if figures["levels"] and figures["distinct_share"] < 0.95:
            failures.append(f"{label}: distinct {figures['distinct_share']:.3f} < 0.95")
        if figures["rows_hed"] and figures["rows_ok"] < 0.95 * figures["rows"]:
            failures.append(f"{label}: rows passing {figures['rows_ok']}/{figures['rows']} < 0.95")
        sidecar_path = out / task["sidecar"].rsplit("/", 1)[-1]
        if sidecar_path.exists():
            sidecar = json.loads(sidecar_path.read_text())
            annotated += sum(isinstance(e, dict) and "HED" in e for e in sidecar.values())
    if annotated < 1:
        failures.append("no entry with HED")
    return failures


def _real_figures(task: dict, label: str) -> list[str]:
    figures, failures = task["quality"], []
    if not task["valid"]:
        failures.append(f"{label}: sidecar invalid")
    if figures["rows_hed"] < 0.95 * figures["rows"]:
        failures.append(f"{label}: rows with HED {figures['rows_hed']}/{figures['rows']} < 0.95")
    if figures["rows_ok"] < 0.90 * figures["rows"]:
        failures.append(f"{label}: rows passing {figures['rows_ok']}/{figures['rows']} < 0.90")
    if figures["distinct_share"] < 0.95:
        failures.append(f"{label}: distinct {figures['distinct_share']:.3f} < 0.95")
    return failures


def check_real(name: str, work: Path, env: dict[str, str], timeout: float) -> list[str]:
    questions, answers = work / f"{name}-questions.tsv", work / f"{name}-answers.tsv"
    _, report, err = annotate(env, timeout, str(REAL_ROOT / name), "--out", str(work / f"{name}-out"),
                              "--questions", str(questions))
    if report is None or not questions.exists():
        return [f"no report or no questions table: {err}"]
    task = report["tasks"][0]
    failures = _real_figures(task, "first run")
    asked = [line.split("\t") for line in questions.read_text().splitlines()[1:]]
    if not len(asked) == task["open_questions"] > 0:  # the count holds the columns' questions too
        failures.append(f"{len(asked)} question rows for {task['open_questions']} open questions")
    answers.write_text("column\tlevel\tdescription\n" + "".join(  # the lab fills the table in
        f"{column}\t{level}\tThe participant presses button {i} to answer the question on the screen.\n"
        for i, (column, level, *_) in enumerate(asked)))
    _, again, err = annotate(env, timeout, str(REAL_ROOT / name), "--out", str(work / f"{name}-again"),
                             "--descriptions", str(answers))
    if again is None:
        return [*failures, f"answered run: no report: {err}"]
    task = again["tasks"][0]
    if task["open_questions"]:
        failures.append(f"answered run: {task['open_questions']} questions still open")
    return failures + _real_figures(task, "answered run")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", nargs="*", help="dataset names to run (default: all)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per command run")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"no shared datasets at {DATA}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hedit-shared-") as tmp:
        work = Path(tmp)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}", "DJANGO_DEBUG": "0"}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        failed = 0
        cases = [(n, check_curated) for n in CURATED] + [(n, check_real) for n in REAL]
        for name, check in cases:
            if args.only and name not in args.only:
                continue
            started = time.monotonic()
            try:
                failures = check(name, work, env, args.timeout)
            except subprocess.TimeoutExpired:
                failures = [f"timed out after {args.timeout:.0f} s"]
            failed += bool(failures)
            verdict = "ok" if not failures else "FAIL " + "; ".join(failures)
            print(f"{name:40s} {time.monotonic() - started:6.1f} s  {verdict}", flush=True)
    print(f"{failed} dataset(s) failing")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
