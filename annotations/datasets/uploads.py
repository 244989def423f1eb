"""Uploaded files (a page's form or the API's multipart body) to the dataset reader's input."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from django.core.files.uploadedfile import UploadedFile

from annotations.datasets.bids.archive import MAX_ARCHIVE_BYTES, DatasetError, DatasetFiles, read_uploads, read_zip

MAX_FILES = 1000


def files_from_uploads(uploads: Sequence[UploadedFile]) -> DatasetFiles:
    """One zip, or several events/sidecar files; raises :class:`DatasetError` naming the problem."""
    if not uploads:
        raise DatasetError("no files: upload a zip of a BIDS dataset or its events files")
    if len(uploads) > MAX_FILES:
        raise DatasetError(f"{len(uploads)} files; upload at most {MAX_FILES}, or one zip")
    zips = [u for u in uploads if (u.name or "").lower().endswith(".zip")]
    if zips and len(uploads) > 1:
        raise DatasetError("upload one zip, or events .tsv/.json files, not both")
    if zips:
        upload = zips[0]
        if upload.size is not None and upload.size > MAX_ARCHIVE_BYTES:
            raise DatasetError(f"the zip is {upload.size:,} bytes; the limit is {MAX_ARCHIVE_BYTES:,}",
                               path=upload.name)
        upload.seek(0)
        return read_zip(upload.file, name=upload.name or "upload.zip")
    total = sum(u.size or 0 for u in uploads)
    if total > MAX_ARCHIVE_BYTES:
        raise DatasetError(f"the files hold {total:,} bytes; the limit is {MAX_ARCHIVE_BYTES:,}")
    return read_uploads([(PurePosixPath(u.name or "file").name, u.read()) for u in uploads])
