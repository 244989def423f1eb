"""Made-up BIDS datasets for the lab's path: every name, marker and word here is invented for the tests.

* :func:`marker_dataset`: a task whose stimulus program wrote each event as one free-text marker string, numbers
  inside (``Lantern glow: cell 12 tint:40``), thousands of distinct strings from a handful of patterns, beside a
  small code column. What a new lab uploads when its events were exported from a marker stream.
* :func:`named_dataset`: a task whose levels are told apart only by their names (``blip_a``, ``blip_b``...), with
  no ``Levels`` descriptions: the annotator can only guess, so every level is a question for the lab.

Each returns the folder; :func:`zipped` packs one as the upload form takes it. Deterministic (a seeded
generator), so a failure reproduces.
"""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

# Marker patterns: words and labelled numbers, as a stimulus program would print them.
PATTERNS = (
    "Lantern glow: cell {a} tint:{b}",
    "Pebble drop - lane {a}",
    "Tide turn: wave {a} speed:{b}",
    "Lantern dim",
    "Kite rise, gust {a}",
)


def _description(name: str, *, hed: str | None = None) -> str:
    found = {"Name": name, "BIDSVersion": "1.8.0"}
    if hed:
        found["HEDVersion"] = hed
    return json.dumps(found, indent=2)


def marker_strings(distinct: int, seed: int = 7) -> list[str]:
    """*distinct* different marker strings from :data:`PATTERNS` (the numbers make them differ)."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < distinct:
        pattern = rng.choice(PATTERNS)
        found[pattern.format(a=rng.randint(1, 999), b=rng.randint(1, 60))] = None
    return list(found)


def marker_dataset(root: Path, *, distinct: int = 3000, subjects: int = 2, hed_version: str | None = None,
                   seed: int = 7) -> Path:
    """A task ``glow`` with a marker column ``stim_mark`` of *distinct* strings (each in a row of its own, some
    repeated) and a code column ``phase`` (``1``, ``2``: described in the sidecar)."""
    rng = random.Random(seed)
    markers = marker_strings(distinct, seed)
    root.mkdir(parents=True)
    (root / "dataset_description.json").write_text(_description("Glow markers (made up)", hed=hed_version))
    (root / "README.md").write_text("Participants watched lanterns, pebbles, tides and kites on a screen.\n")
    (root / "task-glow_events.json").write_text(json.dumps({
        "phase": {"Description": "Part of the session.",
                  "Levels": {"1": "The practice part, before the recorded trials.",
                             "2": "The recorded trials."}}}, indent=2))
    per_subject = (len(markers) + subjects - 1) // subjects
    for number in range(subjects):
        mine = markers[number * per_subject:(number + 1) * per_subject]
        mine = mine + rng.sample(mine, k=max(1, len(mine) // 10))  # some markers twice
        lines = ["onset\tduration\tstim_mark\tphase"]
        lines += [f"{1.0 + 0.75 * i:.3f}\tn/a\t{mark}\t{1 if i < 20 else 2}" for i, mark in enumerate(mine)]
        folder = root / f"sub-{number + 1:02d}" / "eeg"
        folder.mkdir(parents=True)
        (folder / f"sub-{number + 1:02d}_task-glow_events.tsv").write_text("\n".join(lines) + "\n")
    return root


NAMED_LEVELS = ("blip_a", "blip_b", "blip_c", "tock_low", "tock_high")


def named_dataset(root: Path, *, hed_version: str | None = "8.4.0") -> Path:
    """A task ``blips`` whose column ``cue_kind`` has only names (:data:`NAMED_LEVELS`) and no descriptions."""
    root.mkdir(parents=True)
    (root / "dataset_description.json").write_text(_description("Blips (made up)", hed=hed_version))
    lines = ["onset\tduration\tcue_kind"]
    lines += [f"{1.0 + 1.5 * i:.1f}\t0.2\t{NAMED_LEVELS[i % len(NAMED_LEVELS)]}" for i in range(30)]
    folder = root / "sub-01" / "beh"
    folder.mkdir(parents=True)
    (folder / "sub-01_task-blips_events.tsv").write_text("\n".join(lines) + "\n")
    return root


def zipped(folder: Path, target: Path) -> Path:
    """*folder* as one zip with a top folder of its name (as a lab zips a dataset)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return target
