"""Whether a lab's descriptions ever cost a real dataset quality: each dataset annotated plain and described.

Usage (from the project root):
    .venv/bin/python benchmarks/descriptions_corpus.py [NAME ...] [--out DIR] [--timeout 900]

The acceptance line this checks: with descriptions tables written from each dataset's own README,
sidecars and events files (benchmarks/descriptions/<name>.tsv, the ``--descriptions`` form), no
dataset's figures fall. A description is the lab's word; if answering a question makes the sidecar
worse, the job misreads descriptions, and a corpus average would hide it, so each dataset gets a line.

For every dataset with a table (or those named) it runs ``manage.py annotate_dataset DATASET
--ignore-existing-hed --json`` twice, in a subprocess against its own migrated SQLite database: plain into
OUT/plain/<name>, and with ``--descriptions`` into OUT/described/<name>. Every sidecar written is scored by
../shared/eval/score_events.py (the figures ../shared/eval/score_corpus.py reports). A figure that is
lower described than plain by more than 0.0005 is marked FELL; a described run that fails counts as a fall.
Exits 1 when any dataset fell, 2 when nothing could run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "benchmarks" / "descriptions"
SHARED = ROOT.parent / "shared"
DATA = SHARED / "data" / "bids-real"
SCORER = SHARED / "eval" / "score_events.py"
TOLERANCE = 0.0005
# score_events.py's total line (as score_corpus.py reads it).
LINE_RE = re.compile(
    r"F1 ([\d.]+) P ([\d.]+) R ([\d.]+) rows_ok ([\d.]+) rows_hed ([\d.]+) distinct ([\d.]+) valid (\d+)/(\d+) "
    r"rows (\d+) files (\d+) levels (\d+) distinct_by_meaning ([\d.]+)")
FIGURES = ("valid", "rows_ok", "rows_hed", "distinct", "by_meaning")


@dataclass
class Run:
    """One run's figures: shares weighted by rows or levels over its sidecars, as score_corpus.py weighs them."""

    sidecars: int = 0
    valid: int = 0
    rows: int = 0
    levels: int = 0
    sums: dict[str, float] = field(default_factory=lambda: {"rows_ok": 0.0, "rows_hed": 0.0, "distinct": 0.0,
                                                             "by_meaning": 0.0})
    open_questions: int | None = None
    problem: str = ""

    def figure(self, name: str) -> float:
        if name == "valid":
            return self.valid / self.sidecars if self.sidecars else 0.0
        weight = self.rows if name in ("rows_ok", "rows_hed") else self.levels
        return self.sums[name] / weight if weight else 0.0


def annotate(name: str, out: Path, env: dict[str, str], timeout: float, table: Path | None) -> Run:
    """Run the dataset job once (with *table* as ``--descriptions`` when given) and score what it wrote."""
    cmd = [sys.executable, "manage.py", "annotate_dataset", str(DATA / name), "--ignore-existing-hed",
           "--out", str(out), "--json"]
    if table is not None:
        cmd += ["--descriptions", str(table)]
    run = Run()
    for old in out.glob("*_events.json"):  # a reused --out: score only what this run writes
        old.unlink()
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        run.problem = f"no answer in {timeout:.0f} s"
        return run
    try:
        report = json.loads(done.stdout)
        run.open_questions = sum(task["open_questions"] for task in report["tasks"])
    except (ValueError, KeyError, TypeError):
        run.problem = f"exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:160]}"
    for sidecar in sorted(out.glob("*_events.json")):
        score(name, sidecar, run)
    if not run.sidecars and not run.problem:
        run.problem = "no sidecar written"
    return run


def score(name: str, sidecar: Path, run: Run) -> None:
    """Add one sidecar's score_events.py figures to *run* (an unscorable sidecar is a problem of the run)."""
    run.sidecars += 1
    done = subprocess.run([sys.executable, str(SCORER), str(DATA / name), str(sidecar)], capture_output=True,
                          text=True, timeout=1800, check=False)
    found = next((m for line in reversed(done.stdout.splitlines()) if (m := LINE_RE.search(line))), None)
    if found is None:
        run.problem = run.problem or f"unscorable {sidecar.name}"
        return
    rows, levels = int(found[9]), int(found[11])
    run.rows += rows
    run.levels += levels
    run.valid += int(found[7])
    run.sums["rows_ok"] += float(found[4]) * rows
    run.sums["rows_hed"] += float(found[5]) * rows
    run.sums["distinct"] += float(found[6]) * levels
    run.sums["by_meaning"] += float(found[12]) * levels


def compare(name: str, plain: Run, described: Run) -> tuple[str, bool]:
    """The dataset's line (plain -> described for each figure) and whether any figure fell."""
    parts, fell = [], []
    for figure in FIGURES:
        before, after = plain.figure(figure), described.figure(figure)
        shown = (f"{plain.valid}/{plain.sidecars}->{described.valid}/{described.sidecars}" if figure == "valid"
                 else f"{before:.3f}->{after:.3f}")
        if after < before - TOLERANCE:
            fell.append(figure)
            shown += " FELL"
        parts.append(f"{figure} {shown}")
    questions = f"questions {plain.open_questions}->{described.open_questions}"
    problems = [f"{label} {run.problem}" for label, run in (("plain", plain), ("described", described))
                if run.problem]
    if described.problem:
        fell.append("described run")
    line = f"{name:20s} " + "  ".join([*parts, questions])
    if problems:
        line += "  PROBLEM " + "; ".join(problems)
    if fell:
        line += "  fell: " + ", ".join(fell)
    return line, bool(fell)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("names", nargs="*", help="datasets to run (default: every one with a table)")
    parser.add_argument("--out", default=None, help="where the sidecars go (default: a temporary folder)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run of the job")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.stem for p in TABLES.glob("*.tsv"))
    missing = [n for n in names if not (TABLES / f"{n}.tsv").is_file() or not (DATA / n).is_dir()]
    if missing or not names or not SCORER.is_file():
        print(f"no table or dataset for: {', '.join(missing) or 'any'} (or no scorer at {SCORER})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hedit-descriptions-") as tmp:
        out = Path(args.out).resolve() if args.out else Path(tmp)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", "DJANGO_DEBUG": "0"}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        fallen = 0
        for name in names:
            plain = annotate(name, out / "plain" / name, env, args.timeout, None)
            described = annotate(name, out / "described" / name, env, args.timeout, TABLES / f"{name}.tsv")
            line, fell = compare(name, plain, described)
            fallen += fell
            print(line, flush=True)
    print(f"{fallen} of {len(names)} dataset(s) with a figure that fell")
    return 1 if fallen else 0


if __name__ == "__main__":
    sys.exit(main())
