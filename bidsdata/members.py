"""The names of a dataset's members: which are kept, which are the dataset's own words, which are refused.

Every reader of an upload (:mod:`.archive`'s zip, folder and single files) and every writer of one back
(:mod:`.sidecar`'s zip of sidecars) asks these rules, so a file has one name and one verdict however it
arrived. Pure: no I/O.
"""

from __future__ import annotations

import posixpath
import re
import stat
import zipfile
from pathlib import PurePosixPath

from bidsdata.errors import DatasetError
from bidsdata.limits import MAX_PATH_CHARS

DESCRIPTION_FILE = "dataset_description.json"
EVENTS_TSV_SUFFIX = "_events.tsv"
EVENTS_JSON_SUFFIX = "_events.json"
README_NAMES = ("README", "README.md", "README.txt")
"""The dataset's README, in the order one is chosen when there are several."""
_TASK_FILE = re.compile(r"^task-[A-Za-z0-9]+(?:_[A-Za-z0-9]+-[A-Za-z0-9]+)*_[A-Za-z0-9]+\.json$")
_DRIVE = re.compile(r"^[A-Za-z]:")
_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f"]')
IGNORED_PARTS = {"__MACOSX", ".git", ".DS_Store"}
"""Folders and files no dataset holds: an archiver's or a version control's own (and ``._*`` beside them)."""


def _ignored(path: str) -> bool:
    return any(part in IGNORED_PARTS or part.startswith("._") for part in PurePosixPath(path).parts)


def is_relevant(path: str) -> bool:
    """Whether a relative path is one of the files we keep (events files, sidecars, the description)."""
    name = PurePosixPath(path).name
    if _ignored(path):
        return False
    return name == DESCRIPTION_FILE or name.endswith((EVENTS_TSV_SUFFIX, EVENTS_JSON_SUFFIX))


def is_context(path: str) -> bool:
    """Whether a relative path may be a README or task file at the dataset's root (or inside the one top
    folder of an archive: which of the two is known once every name is read)."""
    name = PurePosixPath(path).name
    if _ignored(path) or path.count("/") > 1 or name.endswith(EVENTS_JSON_SUFFIX):
        return False
    return name in README_NAMES or bool(_TASK_FILE.match(name))


def check_member_name(name: str) -> str:
    """Refuse a member path that could escape the dataset root or break a download's header; return it
    normalised (``sub-01/./x`` and ``sub-01//x`` are ``sub-01/x``; no trailing slash; ``""`` for the root), so
    one file has one name whichever way the archive spells it."""
    if "\\" in name:
        raise DatasetError("backslash in path (not a portable zip path)", path=_shown(name))
    if name.startswith("/") or _DRIVE.match(name):
        raise DatasetError("absolute path escapes the dataset root", path=_shown(name))
    if any(part == ".." for part in name.split("/")):
        raise DatasetError("path escapes the dataset root (..)", path=_shown(name))
    if _UNSAFE_NAME.search(name):
        # A file name ends up in Content-Disposition headers and in pages: no quotes, no control characters.
        raise DatasetError("control character or quote in file name", path=_shown(name))
    normal = posixpath.normpath(name) if name.strip("/") else ""
    if len(normal) > MAX_PATH_CHARS:  # stored as a project's file (and no system opens a longer one)
        raise DatasetError(f"the path is {len(normal):,} characters long, more than the {MAX_PATH_CHARS:,} a file's "
                           "path may have", path=_shown(normal[:80]) + "...")
    return "" if normal == "." else normal


def _shown(name: str) -> str:
    """A hostile name as it may be shown in a message: control characters made visible."""
    return name.encode("unicode_escape").decode("ascii") if _UNSAFE_NAME.search(name.replace('"', "")) else name


def is_symlink(info: zipfile.ZipInfo) -> bool:
    """Whether a zip entry is a symbolic link (Unix mode in the high bits of ``external_attr``)."""
    return stat.S_ISLNK(info.external_attr >> 16)


__all__ = ["DESCRIPTION_FILE", "EVENTS_JSON_SUFFIX", "EVENTS_TSV_SUFFIX", "IGNORED_PARTS", "README_NAMES",
           "check_member_name", "is_context", "is_relevant", "is_symlink"]
