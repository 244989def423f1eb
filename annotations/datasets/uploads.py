"""Uploaded files (a page's form or the API's multipart body) to the dataset reader's input."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from bidsdata.archive import MAX_CONTEXT_BYTES, DatasetError, DatasetFiles, read_uploads, read_zip
from bidsdata.limits import LimitExceeded, UploadLimits
from bidsdata.members import is_context, is_relevant

logger = logging.getLogger(__name__)

MAX_FILES = 1000
FILES_READ = ("Read from it: dataset_description.json (its HEDVersion picks the schema), every *_events.tsv and "
              "*_events.json, and the README and task files (task-*_bold.json, _eeg.json...) that tell the annotator "
              "what the study is. Recordings and every other file are skipped.")
"""Which files an upload reads, in the one wording the upload form and the empty datasets page both show."""


def upload_limits() -> UploadLimits:
    """The ``HEDIT_UPLOAD_MAX_*`` settings (README, Datasets) as the reader's limits.

    A bad setting is reported by the system checks (``annotations.E001``); meanwhile the defaults hold.
    """
    try:
        return UploadLimits.from_mapping(getattr(settings, "HEDIT_UPLOAD_LIMITS", {}))
    except ValueError as exc:
        logger.error("upload limits: %s; the defaults apply", exc)
        return UploadLimits()


def files_from_uploads(uploads: Sequence[UploadedFile]) -> DatasetFiles:
    """One zip, or several events/sidecar files; raises :class:`DatasetError` naming the problem.

    Sizes are checked from the request before any file is read; files are then read one at a time.
    """
    limits = upload_limits()
    release_free_memory()
    if not uploads:
        raise DatasetError("no files: upload a zip of a BIDS dataset or its events files")
    if len(uploads) > MAX_FILES:
        raise DatasetError(f"{len(uploads)} files; upload at most {MAX_FILES}, or one zip")
    zips = [u for u in uploads if (u.name or "").lower().endswith(".zip")]
    if zips and len(uploads) > 1:
        raise DatasetError("upload one zip, or events .tsv/.json files, not both")
    if zips:
        upload = zips[0]
        if upload.size is not None and upload.size > limits.max_archive_bytes:
            raise LimitExceeded(f"the zip is {upload.size:,} bytes", "max_archive_bytes", limits.max_archive_bytes,
                                path=upload.name)
        upload.seek(0)
        return read_zip(upload.file, name=upload.name or "upload.zip", limits=limits)
    total = sum(u.size or 0 for u in uploads)
    if total > limits.max_archive_bytes:
        raise LimitExceeded(f"the files hold {total:,} bytes", "max_archive_bytes", limits.max_archive_bytes)
    return read_uploads(_contents(uploads), limits=limits)


def release_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc only; elsewhere nothing happens).

    The server held the request body in memory in small chunks before Django spooled it to disk; freed,
    those chunks stay resident and the file about to be read would come on top of them.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    # Looked up once: find_library runs ldconfig in a subprocess.
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        logger.debug("malloc_trim is not available here")
        return None


def _contents(uploads: Sequence[UploadedFile]) -> Iterator[tuple[str, bytes]]:
    # One file's bytes at a time: the reader decodes each and drops the bytes before asking for the next.
    # Files the reader ignores (recordings picked with a folder) are never read at all.
    for upload in uploads:
        name = PurePosixPath(upload.name or "file").name
        if is_context(name):  # a README or task file: no more than the reader keeps of one
            yield name, upload.read(MAX_CONTEXT_BYTES + 1)
        else:
            yield name, upload.read() if is_relevant(name) else b""
