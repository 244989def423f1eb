"""A large synthetic study through `manage.py annotate_dataset`, beside hedtools' own `hedpy validate bids-dataset`.

    .venv/bin/python benchmarks/dataset_scale.py                       # 100 and 400 files x 400 rows
    .venv/bin/python benchmarks/dataset_scale.py --files 400 --rows 400 --keep

Each size is written as a BIDS folder in a temporary directory (``dataset_description.json`` with HEDVersion
8.4.0, ``sub-XXX/eeg/sub-XXX_task-study_run-N_events.tsv``, no sidecar: the lab has not annotated it yet).
Then, each as a whole new process: (a) our whole job, ``manage.py annotate_dataset FOLDER --out OUT --json``
(import, offline annotator, composition, validation of the sidecar with every events file) on a temporary
SQLite database migrated beforehand; (b) ``hedpy validate bids-dataset FOLDER`` with the sidecar (a) wrote
copied to the folder's root, so both validate the same HED. Prints wall time, peak RSS (``/usr/bin/time -v``
when present, else ``ru_maxrss`` of the children) and error counts of each, and their ratio. Exits 1 when
the ratio at the largest size is above 0.5 (issue 20) or the error counts differ. See benchmarks/README.md.

Each round's ratio goes into the table of rounds in benchmarks/dataset_scale.md (with the load it was measured
at: the two commands run one after the other, so compare only figures of one run), beside the profile of the
job's top functions before and after that round's change.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 0.5
TASK = "study"
TIME = Path("/usr/bin/time")
STIMULI = ("face", "house", "scrambled")
OURS = {"MISSING_HED", "LEFT_OUT", "NOT_COMPOSED"}  # the portal's own rows in the report, not hedtools' issues


def events_text(rng: random.Random, rows: int) -> str:
    """One run: 7 columns, 11 levels (trial_type 6, response 3, hand 2), n/a cells, rows sharing an onset."""
    lines = ["onset\tduration\ttrial_type\tresponse\thand\tresponse_time\tcontrast"]
    onset = rng.uniform(2.0, 5.0)
    while len(lines) <= rows:
        left = rows + 1 - len(lines)
        roll = rng.random()
        if roll < 0.08:
            lines.append(f"{onset:.3f}\t10.0\trest\tn/a\tn/a\tn/a\tn/a")
            onset += 10.0
            continue
        lines.append(f"{onset:.3f}\t0.5\tfixation\tn/a\tn/a\tn/a\tn/a")
        if left > 1:  # the stimulus starts with the fixation cross: two rows at one onset
            stimulus, contrast = rng.choice(STIMULI), f"{rng.uniform(0.1, 1.0):.2f}"
            if rng.random() < 0.1:  # no answer in time
                lines.append(f"{onset:.3f}\t1.0\t{stimulus}\tmiss\tn/a\tn/a\t{contrast}")
            else:
                rt = rng.uniform(0.25, 1.2)
                lines.append(f"{onset:.3f}\t1.0\t{stimulus}\t{'correct' if rng.random() < 0.85 else 'incorrect'}"
                             f"\t{rng.choice(('left', 'right'))}\t{rt:.3f}\t{contrast}")
                if left > 2:
                    lines.append(f"{onset + rt:.3f}\t0.3\tfeedback\tn/a\tn/a\tn/a\tn/a")
        onset += rng.uniform(1.8, 2.6)
    return "\n".join(lines[:rows + 1]) + "\n"


def write_study(folder: Path, files: int, rows: int, seed: int = 20) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    (folder / "dataset_description.json").write_text(json.dumps(
        {"Name": "dataset scale benchmark", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}), encoding="utf-8")
    runs = 4
    for n in range(files):
        subject, run = f"sub-{n // runs + 1:03d}", n % runs + 1
        target = folder / subject / "eeg" / f"{subject}_task-{TASK}_run-{run}_events.tsv"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(events_text(rng, rows), encoding="utf-8")


def spoil(folder: Path, count: int) -> None:
    """Give one answered trial of *count* runs an ``n/a`` onset (its Delay then has no time: an error)."""
    for path in sorted(folder.rglob("*_events.tsv"))[:count]:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        row = next(i for i, line in enumerate(lines) if i and line.split("\t")[5] != "n/a")
        lines[row] = "n/a" + lines[row][lines[row].index("\t"):]
        path.write_text("".join(lines), encoding="utf-8")


@dataclass
class Measure:
    wall: float
    cpu: float  # CPU seconds of the process tree, sampled (the last 0.1 s of each process may be missed)
    peak_rss_mb: float  # the largest single process
    tree_rss_mb: float  # the process and its children together, sampled
    errors: int
    code: int
    load: tuple[float, float]  # 1-minute load average before and after


def _tree(pid: int) -> dict[int, tuple[int, float]]:
    """Each process of *pid*'s tree (a forkserver's workers too): RSS in kB and CPU seconds so far."""
    found, todo, tick = {}, [pid], os.sysconf("SC_CLK_TCK")
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            stat = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            rss = int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1])
            found[current] = (rss, (int(stat[11]) + int(stat[12])) / tick)
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, StopIteration, ValueError, IndexError):
            continue
    return found


def measured(command: list[str], env: dict[str, str], errors_of: Callable[[str], int]) -> Measure:
    """Run *command* to its end: wall time, peak RSS (one process; the tree's total), its error count."""
    before = os.getloadavg()[0]
    with tempfile.NamedTemporaryFile(prefix="hedit-time-", suffix=".txt", delete=False) as handle:
        timing = Path(handle.name)
    wrapped = [str(TIME), "-v", "-o", str(timing), *command] if TIME.exists() else command
    start, tree = time.perf_counter(), 0
    with tempfile.TemporaryFile("w+") as errors, subprocess.Popen(wrapped, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                                                   stderr=errors, text=True) as proc:
        out: list[str] = []
        reader = threading.Thread(target=lambda: out.append(proc.stdout.read() if proc.stdout else ""))
        reader.start()
        cpu: dict[int, float] = {}
        while proc.poll() is None:
            seen = _tree(proc.pid)
            tree = max(tree, sum(rss for rss, _ in seen.values()))
            cpu.update({p: seconds for p, (_, seconds) in seen.items()})
            time.sleep(0.1)
        reader.join()
        wall = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far (a fallback)
    if TIME.exists():
        found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing.read_text())
        peak = int(found.group(1)) if found else peak
    timing.unlink(missing_ok=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command[:4])} failed ({proc.returncode}): {stderr.strip()[-600:]}")
    return Measure(wall, sum(cpu.values()), peak / 1024, tree / 1024, errors_of("".join(out)), proc.returncode,
                   (before, os.getloadavg()[0]))


def our_errors(stdout: str) -> int:
    """hedtools' errors in `annotate_dataset --json`'s report (the portal's own rows left out)."""
    report = json.loads(stdout)
    return sum(1 for task in report["tasks"] for issue in task["issues"]
               if issue["severity"] == "error" and issue["code"] not in OURS)


def run_size(work: Path, files: int, rows: int, bad: int, env: dict[str, str]) -> tuple[Measure, Measure]:
    folder, out = work / f"study-{files}", work / f"out-{files}"
    write_study(folder, files, rows)
    spoil(folder, bad)
    python, hedpy = sys.executable, str(Path(sys.executable).with_name("hedpy"))
    ours = measured([python, "manage.py", "annotate_dataset", str(folder), "--out", str(out), "--json"], env,
                    our_errors)
    shutil.copy(out / f"task-{TASK}_events.json", folder)  # hedpy validates the HED we wrote
    report = work / f"hedpy-{files}.json"
    theirs = measured([hedpy, "validate", "bids-dataset", str(folder), "-s", "events", "-f", "json", "-o",
                       str(report)], env,
                      lambda _: sum(1 for i in json.loads(report.read_text()) if i.get("severity") == 1))
    return ours, theirs


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--files", default="100,400", help="sizes to run, comma-separated (default 100,400)")
    parser.add_argument("--rows", type=int, default=400, help="rows per events file (default 400)")
    parser.add_argument("--bad-files", type=int, default=0,
                        help="runs with one answered trial's onset n/a (an error both must find; default 0)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.files.split(",") if x.strip()]
    work = Path(tempfile.mkdtemp(prefix="hedit-scale-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEDIT_", "DATABASE_", "DJANGO_", "OPENAI_"))}
    env.update({"DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}", "HEDIT_STATE_DIR": str(work / "state"),
                "DJANGO_DEBUG": "0"})
    failures: list[str] = []
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True,
                       timeout=600)
        cores = len(os.sched_getaffinity(0))
        print(f"{cores} core(s); rows per file {args.rows}; runs with a bad value {args.bad_files}; wall seconds, MB")
        print(f"{'files':>5} {'command':30} {'wall':>7} {'CPU':>7} {'peak RSS':>9} {'tree RSS':>9} {'errors':>6} "
              f"{'load':>10}")
        for files in sizes:
            ours, theirs = run_size(work, files, args.rows, args.bad_files, env)
            for label, m in (("manage.py annotate_dataset", ours), ("hedpy validate bids-dataset", theirs)):
                print(f"{files:5d} {label:30} {m.wall:7.1f} {m.cpu:7.1f} {m.peak_rss_mb:9.0f} {m.tree_rss_mb:9.0f} "
                      f"{m.errors:6d} {m.load[0]:4.1f}-{m.load[1]:4.1f}")
            ratio, same = ours.wall / theirs.wall, ours.errors == theirs.errors
            print(f"{files:5d} ratio ours/hedpy {ratio:.2f}; error counts {'equal' if same else 'DIFFER'}")
            if not same:
                failures.append(f"{files} files: {ours.errors} errors against hedpy's {theirs.errors}")
            if files == max(sizes) and ratio > TARGET_RATIO:
                failures.append(f"{files} files: ratio {ratio:.2f} > {TARGET_RATIO}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
