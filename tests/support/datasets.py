"""Shared helpers: the shared BIDS datasets, zipping a folder, and expectations computed with csv alone."""

from __future__ import annotations

import csv
import io
import itertools
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


INTEGER = re.compile(r"[-+]?\d+")
MAGNITUDE_WORDS = {"gain", "loss", "amount", "reward", "price", "time", "rt", "duration", "latency", "age", "count",
                   "size", "distance", "intensity", "volume", "frequency"}


def _counts_up(values: list[str]) -> bool:
    return all(INTEGER.fullmatch(v) for v in values) and all(
        int(b) == int(a) + 1 for a, b in itertools.pairwise(values))


def _undeclared_kind(col: str, counts: Counter, counts_up: bool) -> str:
    """The kind of a column no sidecar entry settles, by the documented rules."""
    words = re.sub(r"[\s_\-]+", " ", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", col)).strip().lower().split()
    integers = bool(counts) and all(INTEGER.fullmatch(v) for v in counts)
    trial_name = " ".join(words) in {"trial", "trial number", "trial num", "trial nr", "trial no", "trial index"}
    counter_name = " ".join(words) in {"event number", "event num", "row", "row number", "line", "line number"} or (
        len(words) > 1 and words[-1] == "index")
    if words[-1:] == ["sample"]:
        return "skip"
    if trial_name and integers:
        return "value"  # which trial a row belongs to: Experimental-trial/#
    if counts_up or (counter_name and integers):
        return "skip"
    magnitude = any(w in MAGNITUDE_WORDS or w.removesuffix("s") in MAGNITUDE_WORDS for w in words) or \
        "number of" in " ".join(words) or (len(words) > 1 and words[0] == "n")
    if integers and len(counts) <= 8 and not magnitude:
        return "categorical"
    numeric = all(re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", v) for v in counts)
    if numeric:
        return "value"
    if len(counts) <= 20:
        return "categorical"
    # Marker strings: up to 100, none a file name, a quarter or more with a space, comma, colon..., repeated.
    free = sum(1 for v in counts if re.search(r"[^A-Za-z0-9_.\-]", v))
    files = any(re.search(r"\.[A-Za-z][A-Za-z0-9]{1,4}$", v) for v in counts)
    repeated = sum(counts.values()) >= 1.25 * len(counts)
    markers = len(counts) <= 100 and not files and free >= len(counts) / 4 and repeated
    return "categorical" if markers else "value"


def expected(folder: Path) -> dict[str, dict]:
    """Per task: sidecar name, events files, and per column (kind, {level: count}) read with csv only.

    The rule under test: onset/duration/sample are skipped; a curator entry with Levels or a HED dict
    makes a column categorical, a HED string a value column; otherwise trial numbers (named trial,
    trial_number... with whole numbers) are values, sample positions and counters (named event_number,
    *_index with whole numbers, or counting up by one in every file) are skipped, up to 8 whole-number
    codes under a name that is no magnitude are categorical, and numbers or more than 20 distinct values
    make a value column, but for marker strings (up to 100 repeated free-text values, no file names); n/a
    is never a level; declared levels absent from the data count 0.
    """
    tasks: dict[str, dict] = {}
    for path in sorted(folder.rglob("*_events.tsv")):
        task = task_of(path.name)
        info = tasks.setdefault(task, {"files": [], "values": {}, "counts_up": {}, "longest": Counter()})
        info["files"].append(path.relative_to(folder).as_posix())
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        for col in rows[0] if rows else []:  # counts up by one in every file, at least 3 values in one
            column = [row[col] for row in rows]
            info["counts_up"][col] = info["counts_up"].get(col, True) and _counts_up(column)
            info["longest"][col] = max(info["longest"][col], len(column))
        for row in rows:
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
                counts_up = info["counts_up"].get(col, False) and info["longest"][col] >= 3
                kind = _undeclared_kind(col, counts, counts_up)
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
