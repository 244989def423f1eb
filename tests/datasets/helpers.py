"""Shared helpers: the shared BIDS datasets, zipping a folder, and expectations computed with csv alone."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections import Counter
from pathlib import Path

# ../shared beside the project, as on every developer machine and in CI.
DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "bids"
DATASETS = ["eeg_ds003645s_hed_demo", "eeg_ds002893s_hed_attention_shift", "eeg_ds004106s_hed"]
SKIP = {"onset", "duration", "sample"}


def zip_folder(folder: Path, target: Path, *, top: str | None = None, extra: dict[str, bytes] | None = None) -> Path:
    """Zip *folder* (inside *top* if given), adding *extra* entries (archive name -> bytes)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                name = path.relative_to(folder).as_posix()
                zf.write(path, f"{top}/{name}" if top else name)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return target


def zip_bytes(entries: dict[str, bytes]) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED)
    buffer.seek(0)
    return buffer


def task_of(name: str) -> str | None:
    m = re.search(r"(?:^|_)task-([A-Za-z0-9]+)", name)
    return m.group(1) if m else None


def expected(folder: Path) -> dict[str, dict]:
    """Per task: sidecar name, events files, and per column (kind, {level: count}) read with csv only.

    The rule under test: onset/duration/sample are skipped; a curator entry with Levels or a HED dict
    makes a column categorical, a HED string a value column; otherwise numbers or more than 20
    distinct values make a value column; n/a is never a level; declared levels absent from the data
    count 0.
    """
    tasks: dict[str, dict] = {}
    for path in sorted(folder.rglob("*_events.tsv")):
        task = task_of(path.name)
        info = tasks.setdefault(task, {"files": [], "values": {}})
        info["files"].append(path.relative_to(folder).as_posix())
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                for col, value in row.items():
                    info["values"].setdefault(col, Counter())
                    if value not in ("n/a", ""):
                        info["values"][col][value] += 1
    for task, info in tasks.items():
        root_sidecar = folder / f"task-{task}_events.json"
        sidecar = json.loads(root_sidecar.read_text(encoding="utf-8")) if root_sidecar.exists() else {}
        info["sidecar_name"] = root_sidecar.name
        info["columns"] = {}
        for col, counts in info["values"].items():
            entry = sidecar.get(col, {})
            hed = entry.get("HED")
            if col in SKIP:
                kind = "skip"
            elif entry.get("Levels") or isinstance(hed, dict):
                kind = "categorical"
            elif isinstance(hed, str):
                kind = "value"
            else:
                numeric = all(re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", v) for v in counts)
                kind = "value" if numeric or len(counts) > 20 else "categorical"
            levels = {}
            if kind == "categorical":
                levels = dict(counts)
                for declared in [*(entry.get("Levels") or {}), *(hed if isinstance(hed, dict) else {})]:
                    levels.setdefault(declared, 0)
            info["columns"][col] = (kind, levels)
    return tasks


def strip_hed(sidecar: dict) -> dict:
    """A curator sidecar as a lab starts from: every HED key removed."""
    return {k: ({kk: vv for kk, vv in v.items() if kk != "HED"} if isinstance(v, dict) else v)
            for k, v in sidecar.items()}
