"""Read an uploaded BIDS dataset safely into memory, keeping only the files that matter for HED.

An upload is a zip (the dataset at its root or inside one top folder), a folder on disk, or a list of
``(filename, bytes)`` pairs (single files from a form). Everything is checked before it is trusted:
sizes, entry counts, compression ratio, paths escaping the root, symlinks, text encoding, JSON syntax
and TSV shape. Each refusal is one :class:`DatasetError` whose message names the problem and the file.

Only ``dataset_description.json``, ``*_events.tsv`` and ``*_events.json`` are kept (at any depth);
recordings and everything else are ignored, so memory stays bounded by what we keep.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import re
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

logger = logging.getLogger(__name__)

MAX_ARCHIVE_BYTES = 50 * 1024 * 1024
"""Largest upload (zip file, or sum of uploaded files) accepted."""
MAX_ENTRIES = 10_000
"""Most entries (files and folders) an archive or folder may hold."""
MAX_TOTAL_BYTES = 200 * 1024 * 1024
"""Largest total uncompressed size of an archive's entries (declared, then as actually read)."""
MAX_RATIO = 100
"""Largest compression ratio for an entry bigger than :data:`RATIO_MIN_BYTES` (zip bombs expand far more)."""
RATIO_MIN_BYTES = 1024 * 1024
"""Small entries may compress very well (a TSV of repeated codes); only larger ones are ratio-checked."""

DESCRIPTION_FILE = "dataset_description.json"
EVENTS_TSV_SUFFIX = "_events.tsv"
EVENTS_JSON_SUFFIX = "_events.json"
_DRIVE = re.compile(r"^[A-Za-z]:")
_IGNORED_PARTS = {"__MACOSX", ".git", ".DS_Store"}


class DatasetError(ValueError):
    """An upload we refuse, with one message naming the problem and, where there is one, the file."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


@dataclass
class DatasetFiles:
    """The files of a dataset that matter for HED: relative POSIX path -> decoded text.

    Every JSON file has been parsed once (so it is known to be JSON) and every TSV checked for a header
    and rectangular rows when this object was made by :func:`read_zip`, :func:`read_folder` or
    :func:`read_uploads`.
    """

    texts: dict[str, str] = field(default_factory=dict)

    def paths(self) -> list[str]:
        return sorted(self.texts)

    def events_files(self) -> list[str]:
        """Every ``*_events.tsv``, sorted."""
        return sorted(p for p in self.texts if p.endswith(EVENTS_TSV_SUFFIX))

    def sidecar_files(self) -> list[str]:
        """Every ``*_events.json``, sorted (root ones first, then deeper ones)."""
        return sorted((p for p in self.texts if p.endswith(EVENTS_JSON_SUFFIX)), key=lambda p: (p.count("/"), p))

    def json(self, path: str) -> Any:
        return json.loads(self.texts[path])

    def tsv_rows(self, path: str) -> list[list[str]]:
        """The rows of a TSV, header first, blank lines left out."""
        return _tsv_rows(self.texts[path])


def is_relevant(path: str) -> bool:
    """Whether a relative path is one of the files we keep."""
    name = PurePosixPath(path).name
    if any(part in _IGNORED_PARTS or part.startswith("._") for part in PurePosixPath(path).parts):
        return False
    return name == DESCRIPTION_FILE or name.endswith((EVENTS_TSV_SUFFIX, EVENTS_JSON_SUFFIX))


def check_member_name(name: str) -> str:
    """Refuse a member path that could escape the dataset root; return it without a trailing slash."""
    if "\\" in name:
        raise DatasetError("backslash in path (not a portable zip path)", path=name)
    if name.startswith("/") or _DRIVE.match(name):
        raise DatasetError("absolute path escapes the dataset root", path=name)
    if any(part == ".." for part in name.split("/")):
        raise DatasetError("path escapes the dataset root (..)", path=name)
    if "\x00" in name:
        raise DatasetError("NUL character in path", path=name)
    return name.rstrip("/")


def _strip_top_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A dataset zipped with its folder: drop that one common top folder."""
    tops = {p.split("/", 1)[0] for p in files}
    if len(tops) == 1 and all("/" in p for p in files):
        top = tops.pop()
        logger.debug("stripping common top folder %s", top)
        return {p.split("/", 1)[1]: data for p, data in files.items()}
    return files


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"not UTF-8 text (byte {exc.start})", path=path) from None


def _tsv_rows(text: str) -> list[list[str]]:
    # BIDS TSV has no quoting: a quote is an ordinary character.
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    return [row for row in reader if any(cell.strip() for cell in row)]


def _check_tsv(text: str, path: str) -> None:
    rows = _tsv_rows(text)
    if not rows:
        raise DatasetError("empty TSV: no header row", path=path)
    header = [h.strip() for h in rows[0]]
    # Every BIDS events file starts with a header naming its columns, onset among them; a first line of
    # numbers or anything without 'onset' means the header is missing.
    if "onset" not in header:
        raise DatasetError("no header row (line 1 must name the columns, 'onset' among them)", path=path)
    if any(not h for h in header):
        raise DatasetError("empty column name in header (line 1)", path=path)
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise DatasetError(f"repeated column name(s) {', '.join(dupes)} in header (line 1)", path=path)
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    for line_no, row in enumerate(reader, start=1):
        if line_no == 1 or not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise DatasetError(f"line {line_no} has {len(row)} fields, the header has {len(header)}", path=path)


def _parse(files: dict[str, bytes]) -> DatasetFiles:
    """Decode and check the kept files."""
    texts: dict[str, str] = {}
    for path in sorted(files):
        text = _decode(files[path], path)
        if path.endswith(".json"):
            try:
                json.loads(text)
            except ValueError as exc:
                raise DatasetError(f"not valid JSON ({exc})", path=path) from None
        else:
            _check_tsv(text, path)
        texts[path] = text
    logger.info("dataset read: %d relevant files", len(texts))
    return DatasetFiles(texts)


def is_symlink(info: zipfile.ZipInfo) -> bool:
    """Whether a zip entry is a symbolic link (Unix mode in the high bits of ``external_attr``)."""
    return stat.S_ISLNK(info.external_attr >> 16)


def _size_of(source: str | os.PathLike[str] | IO[bytes]) -> int:
    if isinstance(source, str | os.PathLike):
        return Path(source).stat().st_size
    position = source.tell()
    size = source.seek(0, io.SEEK_END)
    source.seek(position)
    return size


def read_zip(source: str | os.PathLike[str] | IO[bytes], *, name: str = "upload.zip") -> DatasetFiles:
    """Read a zipped BIDS dataset (a path or a seekable binary file object).

    Raises:
        DatasetError: the archive is too big, holds too many entries, expands too much, is no zip, or
            has an entry escaping the root, a symlink entry or a bad relevant file.
    """
    size = _size_of(source)
    if size > MAX_ARCHIVE_BYTES:
        raise DatasetError(f"archive is {size} bytes, more than the limit of {MAX_ARCHIVE_BYTES}", path=name)
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(f"not a zip archive ({exc})", path=name) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES:
            raise DatasetError(f"archive has {len(infos)} entries, more than the limit of {MAX_ENTRIES}", path=name)
        declared = 0
        for info in infos:
            member = check_member_name(info.filename)
            if is_symlink(info):
                raise DatasetError("symbolic link entries are not allowed", path=member)
            declared += info.file_size
            if (info.file_size > RATIO_MIN_BYTES
                    and info.file_size > MAX_RATIO * max(info.compress_size, 1)):
                raise DatasetError(
                    f"compression ratio {info.file_size // max(info.compress_size, 1)} exceeds {MAX_RATIO} "
                    "(possible zip bomb)", path=member)
        if declared > MAX_TOTAL_BYTES:
            raise DatasetError(f"archive expands to {declared} bytes, more than the limit of {MAX_TOTAL_BYTES}",
                               path=name)
        kept: dict[str, bytes] = {}
        total = 0
        for info in infos:
            member = info.filename.rstrip("/")
            if info.is_dir() or not is_relevant(member):
                continue
            # Read no more than declared (+1 to notice a lie): declared sizes were checked above.
            with archive.open(info) as handle:
                data = handle.read(info.file_size + 1)
            if len(data) > info.file_size:
                raise DatasetError("entry is larger than its header says", path=member)
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise DatasetError(f"archive expands beyond the limit of {MAX_TOTAL_BYTES} bytes", path=member)
            kept[member] = data
    return _parse(_strip_top_folder(kept))


def read_uploads(uploads: Iterable[tuple[str, bytes]]) -> DatasetFiles:
    """Read files uploaded one by one (names may carry relative folders, e.g. from a folder picker).

    Irrelevant files are ignored; the same limits as for an archive apply to their number and size.
    """
    kept: dict[str, bytes] = {}
    count = total = 0
    for filename, data in uploads:
        count += 1
        total += len(data)
        if count > MAX_ENTRIES:
            raise DatasetError(f"more than {MAX_ENTRIES} files uploaded", path=filename)
        if total > MAX_ARCHIVE_BYTES:
            raise DatasetError(f"uploaded files exceed the limit of {MAX_ARCHIVE_BYTES} bytes", path=filename)
        member = check_member_name(filename)
        if not member or not is_relevant(member):
            continue
        if member in kept:
            raise DatasetError("file uploaded twice", path=member)
        kept[member] = data
    return _parse(_strip_top_folder(kept))


def read_folder(folder: str | os.PathLike[str]) -> DatasetFiles:
    """Read a BIDS dataset folder on disk (the CLI's input).

    Symlinks are followed only while they stay inside the folder; one pointing outside is refused.
    """
    root = Path(folder).resolve()
    if not root.is_dir():
        raise DatasetError("not a folder", path=str(folder))
    kept: dict[str, bytes] = {}
    count = total = 0
    for current, dirs, names in os.walk(root):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED_PARTS)
        for entry in [*dirs, *sorted(names)]:
            count += 1
            if count > MAX_ENTRIES:
                raise DatasetError(f"folder has more than {MAX_ENTRIES} entries", path=str(folder))
            path = here / entry
            relative = path.relative_to(root).as_posix()
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                raise DatasetError("symbolic link points outside the dataset folder", path=relative)
            if entry in dirs or not is_relevant(relative) or not path.is_file():
                continue
            total += path.stat().st_size
            if total > MAX_TOTAL_BYTES:
                raise DatasetError(f"relevant files exceed the limit of {MAX_TOTAL_BYTES} bytes", path=relative)
            kept[relative] = path.read_bytes()
    return _parse(kept)
