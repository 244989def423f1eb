"""Read an uploaded BIDS dataset safely into memory, keeping only the files that matter for HED.

An upload is a zip (the dataset at its root or inside one top folder), a folder on disk, or a list of
``(filename, bytes)`` pairs (single files from a form). Everything is checked before it is trusted, and
every cost is capped by :class:`~.limits.UploadLimits` before the work that would pay it: the archive's
size, entry count and overall expansion are checked from its directory before anything is inflated;
member names (:mod:`.members`: no escaping the root, no control characters or quotes, no duplicates), symlinks,
encrypted entries, text encoding, JSON syntax and depth, and TSV shape as hedtools reads it. Each refusal is one
:class:`DatasetError` whose message names the problem and the file.

Only ``dataset_description.json``, ``*_events.tsv`` and ``*_events.json`` are kept (at any depth);
recordings and everything else are ignored. Each kept file is decoded as soon as it is read and its bytes
dropped, and each events file is scanned once (:mod:`.tsv`), so memory stays near the text kept.

Besides, the dataset's own words about itself are kept as *context* for the annotator, apart from the files
above: the ``README`` (``README.md``, ``README.txt``) and the task files (``task-<label>_bold.json``,
``_eeg.json``...) at the dataset's root. Each is read no further than :data:`MAX_CONTEXT_BYTES` (a longer
README is cut there; a longer task file, or one that is not a JSON object, is left out: it is context, not a
reason to refuse the upload), and what is read counts in the upload limits like any kept file.
"""

from __future__ import annotations

import io
import json
import logging
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bidsdata import tsv
from bidsdata.errors import DatasetError
from bidsdata.jsontext import json_depth
from bidsdata.limits import LimitExceeded, UploadLimits
from bidsdata.members import (
    EVENTS_JSON_SUFFIX,
    EVENTS_TSV_SUFFIX,
    IGNORED_PARTS,
    README_NAMES,
    check_member_name,
    is_context,
    is_relevant,
    is_symlink,
)

logger = logging.getLogger(__name__)

RATIO_MIN_BYTES = 1024 * 1024
"""An entry (or a whole archive) expanding to less than this is not ratio-checked: small text compresses
very well (a TSV of repeated codes) and costs nothing to read."""

_ENCRYPTED = 0x1
"""Bit 0 of a zip entry's general purpose flags: the entry is encrypted (APPNOTE 4.4.4)."""

MAX_CONTEXT_BYTES = 64 * 1024
"""The most read of one context file (a README, a task file)."""

__all__ = ["DatasetError", "DatasetFiles", "LimitExceeded", "UploadLimits", "read_folder", "read_uploads",
           "read_zip"]


@dataclass
class DatasetFiles:
    """The files of a dataset that matter for HED: relative POSIX path -> decoded text.

    Every JSON file has been parsed once (so it is known to be JSON) and every TSV scanned (header,
    rectangular rows, value counts) when this object was made by :func:`read_zip`, :func:`read_folder` or
    :func:`read_uploads`; the scans are kept in ``scans`` for the inventory.
    """

    texts: dict[str, str] = field(default_factory=dict)
    scans: dict[str, tsv.TableScan] = field(default_factory=dict, repr=False)
    context: dict[str, str] = field(default_factory=dict)
    """Root README and task files (path -> text, a README cut at :data:`MAX_CONTEXT_BYTES`): read for the
    annotator, never written back (a cut README is no copy of the dataset's)."""

    def paths(self) -> list[str]:
        return sorted(self.texts)

    def readme(self) -> str:
        """The dataset's README text ("" when there is none)."""
        return next((self.context[name] for name in README_NAMES if name in self.context), "")

    def json_context(self, path: str) -> dict[str, Any]:
        """A context task file, parsed (the reader kept only JSON objects)."""
        return json.loads(self.context[path])

    def task_files(self) -> list[str]:
        """The root task files (``task-<label>_<suffix>.json``) kept as context, plainest first."""
        return sorted((p for p in self.context if is_context(p) and p not in README_NAMES),
                      key=lambda p: (p.count("_"), p))

    def events_files(self) -> list[str]:
        """Every ``*_events.tsv``, sorted."""
        return sorted(p for p in self.texts if p.endswith(EVENTS_TSV_SUFFIX))

    def sidecar_files(self) -> list[str]:
        """Every ``*_events.json``, sorted (root ones first, then deeper ones)."""
        return sorted((p for p in self.texts if p.endswith(EVENTS_JSON_SUFFIX)), key=lambda p: (p.count("/"), p))

    def json(self, path: str) -> Any:
        return json.loads(self.texts[path])

    def scan(self, path: str, limits: UploadLimits | None = None) -> tsv.TableScan:
        """One pass over an events file (made when it was read; made now for files from elsewhere)."""
        if path not in self.scans:
            self.scans[path] = tsv.scan(self.texts[path], path, limits or UploadLimits())
        return self.scans[path]


def _decode(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    return tsv.normalise_newlines(text)


class _Collector:
    """Kept files as they are read: decoded at once (their bytes dropped), JSON checked, sizes summed."""

    def __init__(self, limits: UploadLimits) -> None:
        self.limits = limits
        self.texts: dict[str, str] = {}
        self.context: dict[str, str] = {}
        self.total = 0
        self._names: set[str] = set()

    def _first(self, path: str) -> None:
        """Refuse a second file of *path*'s name, letter case aside: a dataset copied to a case-insensitive
        disk (or a lab's Windows share) would hold one of the two, so which one is meant cannot be told."""
        if path.casefold() in self._names:
            raise DatasetError("the same file appears twice (names compared without letter case)", path=path)
        self._names.add(path.casefold())

    def add(self, path: str, data: bytes) -> None:
        self._first(path)
        self.total += len(data)
        if self.total > self.limits.max_expanded_bytes:
            raise LimitExceeded(f"the kept files expand to over {self.limits.max_expanded_bytes:,} bytes",
                                "max_expanded_bytes", self.limits.max_expanded_bytes, path=path)
        if path.endswith(".json") and len(data) > self.limits.max_sidecar_bytes:
            raise LimitExceeded(f"JSON file of {len(data):,} bytes", "max_sidecar_bytes",
                                self.limits.max_sidecar_bytes, path=path)
        text = _decode(data, path)
        if path.endswith(".json"):
            _check_json(text, path, self.limits.max_json_depth)
        self.texts[path] = text

    def add_context(self, path: str, data: bytes, *, cut: bool) -> None:
        """A README or task file, *data* being at most :data:`MAX_CONTEXT_BYTES` of it (*cut*: there was more)."""
        self._first(path)
        self.total += len(data)
        if self.total > self.limits.max_expanded_bytes:
            raise LimitExceeded(f"the kept files expand to over {self.limits.max_expanded_bytes:,} bytes",
                                "max_expanded_bytes", self.limits.max_expanded_bytes, path=path)
        if not path.endswith(".json"):  # a README: its first part, undecodable bytes replaced
            text = tsv.normalise_newlines(data.decode("utf-8-sig", errors="replace"))
            self.context[path] = text.removesuffix("\ufffd") if cut else text
            return
        try:
            if cut:
                raise ValueError(f"over {MAX_CONTEXT_BYTES:,} bytes")
            text = data.decode("utf-8-sig")
            _check_json(text, path, self.limits.max_json_depth)
            if not isinstance(json.loads(text), dict):
                raise ValueError("not a JSON object")
        except (ValueError, DatasetError) as exc:
            logger.info("task file %s left out of the context: %s", path, exc)
            return
        self.context[path] = text

    def files(self, *, strip_top: bool = True) -> DatasetFiles:
        top = _top_folder(self.texts) if strip_top else None
        texts = {p.removeprefix(top): t for p, t in self.texts.items()} if top else self.texts
        context = {p.removeprefix(top or ""): t for p, t in self.context.items() if not top or p.startswith(top)}
        files = DatasetFiles(texts, context={p: t for p, t in context.items() if "/" not in p})
        rows = 0
        for path in files.events_files():
            rows += files.scans.setdefault(path, tsv.scan(texts[path], path, self.limits, rows_so_far=rows)).rows
        logger.info("dataset read: %d relevant files, %d context files, %d events rows", len(texts),
                    len(files.context), rows)
        return files


def _check_json(text: str, path: str, max_depth: int) -> None:
    if json_depth(text) > max_depth:
        raise LimitExceeded(f"JSON nested over {max_depth} levels deep", "max_json_depth", max_depth, path=path)
    try:
        json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"not valid JSON ({exc})", path=path) from None


def _not_json(name: str) -> None:
    """Python reads ``NaN`` and ``Infinity``; JSON has neither, and no database stores them as JSON."""
    raise ValueError(f"{name} is not a JSON value: write a number or null")


def _top_folder(files: dict[str, str]) -> str | None:
    """A dataset zipped with its folder: that one common top folder of the kept files (with its slash)."""
    tops = {p.split("/", 1)[0] for p in files}
    if len(tops) == 1 and all("/" in p for p in files):
        top = tops.pop()
        logger.debug("stripping common top folder %s", top)
        return f"{top}/"
    return None


def _size_of(source: str | os.PathLike[str] | IO[bytes]) -> int:
    if isinstance(source, str | os.PathLike):
        return Path(source).stat().st_size
    position = source.tell()
    size = source.seek(0, io.SEEK_END)
    source.seek(position)
    return size


def _check_directory(infos: list[zipfile.ZipInfo], size: int, name: str, limits: UploadLimits) -> None:
    """Everything the zip's directory tells, checked before a byte is inflated."""
    if len(infos) > limits.max_entries:
        raise LimitExceeded(f"archive has {len(infos):,} entries", "max_entries", limits.max_entries, path=name)
    declared = 0
    seen: set[str] = set()
    for info in infos:
        member = check_member_name(info.filename)
        if is_symlink(info):
            raise DatasetError("symbolic link entries are not allowed", path=member)
        # Compared normalised and case-folded: sub-01/./x, sub-01//x and SUB-01/x are all one sub-01/x.
        if member.casefold() in seen and not info.is_dir():
            raise DatasetError("the archive holds two entries with this name (letter case and ./ aside)",
                               path=member)
        seen.add(member.casefold())
        # Only the entries read are asked: zipfile can open an encrypted one only with its password, and
        # an encrypted recording the reader skips costs nothing.
        if info.flag_bits & _ENCRYPTED and not info.is_dir() and (is_relevant(member) or is_context(member)):
            raise DatasetError("the entry is encrypted: zip the dataset without a password", path=member)
        declared += info.file_size
        if member.endswith(".json") and is_relevant(member) and info.file_size > limits.max_sidecar_bytes:
            raise LimitExceeded(f"JSON file of {info.file_size:,} bytes", "max_sidecar_bytes",
                                limits.max_sidecar_bytes, path=member)
        if info.file_size > RATIO_MIN_BYTES and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            raise LimitExceeded(f"compression ratio {info.file_size // max(info.compress_size, 1):,} "
                                "(possible zip bomb)", "max_ratio", limits.max_ratio, path=member)
    # Many small entries each under the per-entry check still add up: the whole archive is held to the ratio.
    if declared > RATIO_MIN_BYTES and declared > limits.max_ratio * max(size, 1):
        raise LimitExceeded(f"archive of {size:,} bytes expands to {declared:,} bytes, a ratio of "
                            f"{declared // max(size, 1):,} (possible zip bomb)", "max_ratio", limits.max_ratio,
                            path=name)


def read_zip(source: str | os.PathLike[str] | IO[bytes], *, name: str = "upload.zip",
             limits: UploadLimits | None = None) -> DatasetFiles:
    """Read a zipped BIDS dataset (a path or a seekable binary file object).

    Raises:
        DatasetError: the archive is no zip, or has an entry escaping the root, a badly named or repeated
            entry, a symlink entry or a bad relevant file.
        LimitExceeded: the archive is too big, holds too many entries, expands too much or to too high a
            ratio, or a kept file passes a limit.
    """
    limits = limits or UploadLimits()
    size = _size_of(source)
    if size > limits.max_archive_bytes:
        raise LimitExceeded(f"archive is {size:,} bytes", "max_archive_bytes", limits.max_archive_bytes, path=name)
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DatasetError(f"not a zip archive ({exc})", path=name) from None
    collector = _Collector(limits)
    with archive:
        infos = archive.infolist()
        _check_directory(infos, size, name, limits)
        for info in infos:
            member = check_member_name(info.filename)  # normalised as the directory check saw it
            context = is_context(member)
            if info.is_dir() or not (context or is_relevant(member)):
                continue
            # Read no more than declared (+1 to notice a lie): declared sizes were checked above.
            wanted = min(info.file_size, MAX_CONTEXT_BYTES) if context else info.file_size
            try:
                with archive.open(info) as handle:
                    data = handle.read(wanted + 1)
            except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
                raise DatasetError(f"entry cannot be read ({exc})", path=member) from None
            if len(data) > info.file_size:
                raise DatasetError("entry is larger than its header says", path=member)
            if context:
                collector.add_context(member, data[:MAX_CONTEXT_BYTES], cut=len(data) > MAX_CONTEXT_BYTES)
            else:
                collector.add(member, data)
            del data
    return collector.files()


def read_uploads(uploads: Iterable[tuple[str, bytes]], *, limits: UploadLimits | None = None) -> DatasetFiles:
    """Read files uploaded one by one (names may carry relative folders, e.g. from a folder picker).

    *uploads* may be a generator: each file is read, decoded and its bytes dropped before the next.
    Irrelevant files are ignored; the same limits as for an archive apply to their number and size.
    """
    limits = limits or UploadLimits()
    collector = _Collector(limits)
    count = total = 0
    for filename, data in uploads:
        count += 1
        total += len(data)
        if count > limits.max_entries:
            raise LimitExceeded(f"over {limits.max_entries:,} files uploaded", "max_entries", limits.max_entries,
                                path=filename)
        if total > limits.max_archive_bytes:
            raise LimitExceeded(f"uploaded files hold over {limits.max_archive_bytes:,} bytes", "max_archive_bytes",
                                limits.max_archive_bytes, path=filename)
        member = check_member_name(filename)
        if member and is_context(member):
            if member in collector.context:
                raise DatasetError("file uploaded twice", path=member)
            collector.add_context(member, data[:MAX_CONTEXT_BYTES], cut=len(data) > MAX_CONTEXT_BYTES)
            continue
        if not member or not is_relevant(member):
            continue
        if member in collector.texts:
            raise DatasetError("file uploaded twice", path=member)
        collector.add(member, data)
        del data  # the text is kept; its bytes must not outlive the decoding
    return collector.files()


def read_folder(folder: str | os.PathLike[str], *, limits: UploadLimits | None = None) -> DatasetFiles:
    """Read a BIDS dataset folder on disk (the CLI's input).

    Symlinks are followed only while they stay inside the folder; one pointing outside is refused.
    """
    limits = limits or UploadLimits()
    root = Path(folder).resolve()
    if not root.is_dir():
        raise DatasetError("not a folder", path=str(folder))
    collector = _Collector(limits)
    count = 0
    for current, dirs, names in os.walk(root):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_PARTS)
        for entry in [*dirs, *sorted(names)]:
            count += 1
            if count > limits.max_entries:
                raise LimitExceeded(f"folder has over {limits.max_entries:,} entries", "max_entries",
                                    limits.max_entries, path=str(folder))
            path = here / entry
            relative = path.relative_to(root).as_posix()
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                raise DatasetError("symbolic link points outside the dataset folder", path=relative)
            if entry in dirs or not path.is_file():
                continue
            if "/" not in relative and is_context(relative):
                with path.open("rb") as handle:
                    data = handle.read(MAX_CONTEXT_BYTES + 1)
                collector.add_context(relative, data[:MAX_CONTEXT_BYTES], cut=len(data) > MAX_CONTEXT_BYTES)
                continue
            if not is_relevant(relative):
                continue
            if collector.total + path.stat().st_size > limits.max_expanded_bytes:
                raise LimitExceeded(f"relevant files hold over {limits.max_expanded_bytes:,} bytes",
                                    "max_expanded_bytes", limits.max_expanded_bytes, path=relative)
            collector.add(relative, path.read_bytes())
    return collector.files(strip_top=False)
