"""Descriptions never hurt: each curated dataset annotated with the lab's ``Levels`` descriptions and without.

Usage (from the project root):
    .venv/bin/python benchmarks/curated_descriptions.py [NAME ...] [--out DIR] [--timeout 900]

The acceptance line this checks (issue 36): on every curated dataset, tag F1 against the curators with the
lab's ``Levels`` descriptions is at least F1 with them removed. The ``Levels`` texts of a curated dataset are
what a lab types when it answers the portal's questions, so a fall means the job misreads a lab's words.

For every dataset of ``../shared/data/bids-curated`` (or those named) it runs ``manage.py annotate_dataset
--ignore-existing-hed`` twice against one migrated SQLite database: on the dataset as it is (described), and
on a copy whose sidecars lost every ``Levels`` object (plain: the levels are then found in the events files
and described from their names). Both sidecars are scored by ../shared/eval/score_events.py against the
curators' own sidecar (the dataset's ``task-X_events.json``). Prints one line per dataset with F1 and the
other figures plain -> described, FELL where F1 falls by more than 0.0005; exits 1 when any dataset fell.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = SHARED / "data" / "bids-curated"
SCORER = SHARED / "eval" / "score_events.py"
TOLERANCE = 0.0005
LINE_RE = re.compile(r"F1 ([\d.]+) P ([\d.]+) R ([\d.]+) rows_ok ([\d.]+) rows_hed ([\d.]+) distinct ([\d.]+) "
                     r"valid (\d+)/(\d+) rows (\d+) files (\d+) levels (\d+) distinct_by_meaning ([\d.]+)")


def without_levels(source: Path, target: Path) -> None:
    """A copy of the dataset *source* at *target* whose sidecars have no ``Levels`` (nor HED: it is ignored)."""
    shutil.copytree(source, target)
    for sidecar in target.rglob("*.json"):
        if sidecar.name == "dataset_description.json":
            continue
        content = json.loads(sidecar.read_text(encoding="utf-8"))
        if isinstance(content, dict):
            for entry in content.values():
                if isinstance(entry, dict):
                    entry.pop("Levels", None)
                    entry.pop("HED", None)
            sidecar.write_text(json.dumps(content, indent=2), encoding="utf-8")


def curators(dataset: Path, name: str) -> Path | None:
    own = dataset / name
    return own if own.is_file() and '"HED"' in own.read_text(encoding="utf-8") else None


def run(dataset: Path, curated: Path, out: Path, env: dict[str, str], timeout: float) -> tuple[dict, str]:
    """The job on *dataset*, scored against *curated*'s sidecars: figures weighted by rows, and a problem."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "manage.py", "annotate_dataset", str(dataset), "--ignore-existing-hed", "--out", str(out),
           "--json"]
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {}, f"no answer in {timeout:.0f} s"
    problem = "" if done.returncode in (0, 1) and "Traceback" not in done.stderr else f"exit {done.returncode}"
    figures = {"rows": 0, "f1": 0.0, "rows_ok": 0.0, "valid": 0, "sidecars": 0}
    for sidecar in sorted(out.glob("*_events.json")):
        expert = curators(curated, sidecar.name)
        if expert is None:
            continue
        scored = subprocess.run([sys.executable, str(SCORER), str(dataset), str(sidecar), "--expert", str(expert)],
                                capture_output=True, text=True, timeout=1800, check=False)
        found = next((m for line in reversed(scored.stdout.splitlines()) if (m := LINE_RE.search(line))), None)
        if found is None:
            problem = problem or f"unscorable {sidecar.name}"
            continue
        rows = int(found[9])
        figures["rows"] += rows
        figures["f1"] += float(found[1]) * rows
        figures["rows_ok"] += float(found[4]) * rows
        figures["valid"] += int(found[7])
        figures["sidecars"] += 1
    return figures, problem


def share(figures: dict, name: str) -> float:
    return figures[name] / figures["rows"] if figures.get("rows") else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("names", nargs="*", help="datasets to run (default: every curated one)")
    parser.add_argument("--out", default=None, help="where the sidecars go (default: a temporary folder)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run of the job")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.name for p in DATA.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    if not names or not SCORER.is_file():
        print(f"no curated datasets under {DATA} (or no scorer at {SCORER})", file=sys.stderr)
        return 2
    fallen = 0
    totals = {"plain": [0, 0.0], "described": [0, 0.0]}
    with tempfile.TemporaryDirectory(prefix="hedit-curated-") as tmp:
        out = Path(args.out).resolve() if args.out else Path(tmp)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", "DJANGO_DEBUG": "0"}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        for name in names:
            plain_copy = Path(tmp) / "plain-data" / name
            without_levels(DATA / name, plain_copy)
            plain, p_problem = run(plain_copy, DATA / name, out / "plain" / name, env, args.timeout)
            described, d_problem = run(DATA / name, DATA / name, out / "described" / name, env, args.timeout)
            before, after = share(plain, "f1"), share(described, "f1")
            fell = after < before - TOLERANCE or bool(d_problem)
            fallen += fell
            for label, figures in (("plain", plain), ("described", described)):
                totals[label][0] += figures.get("rows", 0)
                totals[label][1] += figures.get("f1", 0.0)
            line = (f"{name:10s} F1 {before:.3f}->{after:.3f}  rows_ok {share(plain, 'rows_ok'):.3f}->"
                    f"{share(described, 'rows_ok'):.3f}  valid {plain.get('valid', 0)}/{plain.get('sidecars', 0)}->"
                    f"{described.get('valid', 0)}/{described.get('sidecars', 0)}")
            problems = "; ".join(f"{k} {p}" for k, p in (("plain", p_problem), ("described", d_problem)) if p)
            print(line + (f"  PROBLEM {problems}" if problems else "") + ("  FELL" if fell else ""), flush=True)
    corpus = {k: (v[1] / v[0] if v[0] else 0.0) for k, v in totals.items()}
    print(f"corpus F1 plain {corpus['plain']:.3f} described {corpus['described']:.3f}; "
          f"{fallen} of {len(names)} dataset(s) fell")
    return 1 if fallen else 0


if __name__ == "__main__":
    sys.exit(main())
