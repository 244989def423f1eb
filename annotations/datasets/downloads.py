"""A project's zip download, as the project page and the API both serve it: its name and the response.

Kept out of the views so the API (which imports nothing from the pages' views) and the page share one
definition of what the download is called and how it is spooled.
"""

from __future__ import annotations

import re
import tempfile

from django.http import FileResponse

from annotations.datasets.results import write_zip
from annotations.models import DatasetProject

ZIP_SPOOL_BYTES = 8 * 2**20  # a dataset zip larger than this is written to a temporary file, not memory
ZIP_SUFFIX = "_events_and_sidecars.zip"
"""The download's name says what it holds: the events files and sidecars an upload keeps, not the whole dataset
(recordings are never uploaded; storing them would cost gigabytes per project for files HED never reads)."""

# An upload's file name is a project's default name: its extension is no part of the dataset's name.
UPLOAD_EXTENSIONS = re.compile(r"(\.(zip|tar|tgz|gz|bz2|xz|tsv|json))+$", re.IGNORECASE)


def zip_download_name(project_name: str) -> str:
    """``ds116.zip`` -> ``ds116_events_and_sidecars.zip``: the project's name without an upload's extension, in
    characters every file system takes."""
    stem = UPLOAD_EXTENSIONS.sub("", project_name.strip())
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)[:80].strip("._") or "dataset"
    return f"{name}{ZIP_SUFFIX}"


def zip_response(project: DatasetProject, filename: str) -> FileResponse:
    """The project's events files and sidecars (all an upload keeps) with the new sidecars in place, as one zip
    named *filename*; spooled to a temporary file past :data:`ZIP_SPOOL_BYTES`."""
    spool = tempfile.SpooledTemporaryFile(max_size=ZIP_SPOOL_BYTES)  # noqa: SIM115 - FileResponse closes it
    write_zip(project, spool)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=filename, content_type="application/zip")
