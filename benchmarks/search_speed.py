"""A HED query over a 100-file task, beside hedtools' own loop over the same files; then a second query.

    .venv/bin/python benchmarks/search_speed.py                      # FacePerception-sized files, 100 of them
    .venv/bin/python benchmarks/search_speed.py --files 100 --dataset ../shared/data/bids/<folder> --repeat 3

The task is made at benchmark time from a shared curated dataset (``--dataset``; its task with the most events
files): its events files copied round-robin to ``--files`` files, each copy's onsets shifted by its own
millisecond so no two texts are the same (every file is assembled, none shared by key), with the dataset's
own root sidecar. Then, in this process with the schema loaded beforehand:

- **bare**: hedtools' loop as a script writes it: per file ``TabularInput`` -> ``EventManager`` ->
  ``HedTagManager.get_hed_objs`` -> ``QueryHandler.search`` for the first query;
- **first**: the portal's path for the same query: :class:`bidsdata.usage.TaskEvents` asked in a search
  process (started and warm beforehand, holding nothing), the files sent by reference first and their texts
  on its request, assembled there and kept;
- **second**: another query on the same revision (the assembly kept in that process).

Each is the best of ``--repeat`` runs (a fresh revision for each first query). Prints the times and the
ratios first/bare (target <= 1.5) and second/bare (target <= 0.2), and checks the counts equal hedtools';
exit 1 when a target or a count fails.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import agents  # noqa: E402,F401 - hedtools imported without typeguard's start-up cost (agents.quickstart)

DEFAULT_DATASET = ROOT.parent / "shared" / "data" / "bids" / "eeg_ds003645s_hed_demo"
FIRST_QUERY, SECOND_QUERY = "Sensory-event && ~Agent-action", "Agent-action || [Item && Property]"
TARGET_FIRST, TARGET_SECOND = 1.5, 0.2
ONSET = re.compile(r"^([0-9.]+)(\t)", re.MULTILINE)


def make_task(dataset: Path, files: int, folder: Path) -> tuple[str, list[Path], Path, object]:
    """*files* events files of the dataset's largest task in *folder*, and the task's root sidecar."""
    by_task: dict[str, list[Path]] = {}
    for path in sorted(dataset.rglob("*_events.tsv")):
        task = next(p[5:] for p in path.name.split("_") if p.startswith("task-"))
        by_task.setdefault(task, []).append(path)
    task, sources = max(by_task.items(), key=lambda item: len(item[1]))
    version = json.loads((dataset / "dataset_description.json").read_text())["HEDVersion"]
    sidecar = folder / f"task-{task}_events.json"
    sidecar.write_text((dataset / f"task-{task}_events.json").read_text())
    made = []
    for index in range(files):
        text = sources[index % len(sources)].read_text()
        shifted = ONSET.sub(lambda m, i=index: f"{float(m.group(1)) + (i + 1) * 0.001:.6f}{m.group(2)}", text)
        target = folder / f"sub-{index:03d}" / f"sub-{index:03d}_task-{task}_run-1_events.tsv"
        target.parent.mkdir(parents=True)
        target.write_text(shifted)
        made.append(target)
    return task, made, sidecar, version


def bare(paths: list[Path], sidecar: Path, version: object, query: str) -> tuple[float, int]:
    from hed import QueryHandler
    from hed.models import Sidecar, TabularInput
    from hed.tools.analysis.event_manager import EventManager
    from hed.tools.analysis.hed_tag_manager import HedTagManager

    from bidsdata.schemas import load_schema

    schema = load_schema(version)
    start = time.perf_counter()
    side = Sidecar(str(sidecar))
    handler = QueryHandler(query)
    matches = 0
    for path in paths:
        objects = HedTagManager(EventManager(TabularInput(str(path), sidecar=side), schema)).get_hed_objs()
        matches += sum(1 for obj in objects if obj and handler.search(obj))
    return time.perf_counter() - start, matches


def portal_events(folder: Path, task: str, version: object, salt: int):
    """The task as the portal asks it: sources by reference, texts read when the search process asks."""
    from bidsdata.archive import read_folder
    from bidsdata.usage import EventsSource, TaskEvents
    from bidsdata.usage.sources import task_sources, tasks_of

    files = read_folder(folder)
    complete = {s.key: s for s in task_sources(files, tasks_of(files)[task], version)}
    refs = [EventsSource(path=s.path, key=f"{s.key}:{salt}") for s in complete.values()]
    full = {f"{k}:{salt}": EventsSource(path=s.path, key=f"{k}:{salt}", text=s.text, sidecar=s.sidecar)
            for k, s in complete.items()}
    return TaskEvents(task, version, refs, complete=lambda keys: {k: full[k] for k in keys}, revision=f"bench:{salt}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from bidsdata.schemas import load_schema
    from bidsdata.usage import workers

    with tempfile.TemporaryDirectory() as tmp:
        task, paths, sidecar, version = make_task(args.dataset, args.files, Path(tmp))
        load_schema(version)
        workers.configure_search(1)
        workers.call("warm", workers.store_stats)  # the process started and its schema loaded, as a server's is
        rows = sum(p.read_text().count("\n") - 1 for p in paths)
        print(f"{args.files} events files of task {task} ({rows} rows), query {FIRST_QUERY!r} then {SECOND_QUERY!r}")
        times: dict[str, float] = {"bare": float("inf"), "first": float("inf"), "second": float("inf")}
        expected = ours = second = 0
        for attempt in range(args.repeat):
            spent, expected = bare(paths, sidecar, version, FIRST_QUERY)
            times["bare"] = min(times["bare"], spent)
            events = portal_events(Path(tmp), task, version, attempt)
            start = time.perf_counter()
            ours = events.counts([FIRST_QUERY]).matches[0]
            times["first"] = min(times["first"], time.perf_counter() - start)
            start = time.perf_counter()
            second = events.counts([SECOND_QUERY]).matches[0]
            times["second"] = min(times["second"], time.perf_counter() - start)
            print(f"  run {attempt + 1}: bare {spent:.2f} s, first {times['first']:.2f} s, "
                  f"second {times['second']:.3f} s")
        _, expected_second = bare(paths, sidecar, version, SECOND_QUERY)
        workers.drop_search_processes()
    first_ratio, second_ratio = times["first"] / times["bare"], times["second"] / times["bare"]
    print(f"bare hedtools loop {times['bare']:.2f} s; first query {times['first']:.2f} s ({first_ratio:.2f}x, target "
          f"<= {TARGET_FIRST}); second query {times['second']:.3f} s ({second_ratio:.3f}x, target <= {TARGET_SECOND})")
    same = ours == expected and second == expected_second
    print(f"matches: {ours} and {second}; hedtools: {expected} and {expected_second}: {'equal' if same else 'DIFFER'}")
    return 0 if same and first_ratio <= TARGET_FIRST and second_ratio <= TARGET_SECOND else 1


if __name__ == "__main__":
    sys.exit(main())
