"""What the downloaded zip adds to the lab's files: the ``HEDVersion`` a BIDS validator needs, and a note saying so.

A dataset's ``dataset_description.json`` names the HED schema its sidecars are validated with (``HEDVersion``);
without it a BIDS validator does not check the HED at all, and most uploads lack it. The zip the portal hands back
(:func:`bidsdata.sidecar.write_dataset_zip`) therefore carries a ``dataset_description.json`` with the version the
sidecars were validated with (the lab's own fields kept, in their order), and ``README_HED.md`` saying what was
written and why, so the lab knows what to copy into its dataset. Pure: no Django.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from bidsdata.archive import DatasetFiles

DESCRIPTION = "dataset_description.json"
NOTE = "README_HED.md"
BIDS_VERSION = "1.8.0"  # the first BIDS version whose dataset_description.json takes HEDVersion


def _version_text(version: str | list[str]) -> str:
    return ", ".join(version) if isinstance(version, list) else version


def release_files(files: DatasetFiles, hed_version: str | list[str], sidecars: Iterable[str], *,
                  name: str = "") -> DatasetFiles:
    """*files* as the zip writes them: ``dataset_description.json`` with *hed_version* where it has no
    ``HEDVersion`` (written whole where the upload had none), and :data:`NOTE` saying what the zip holds."""
    texts = dict(files.texts)
    found = texts.get(DESCRIPTION)
    try:
        described: Any = json.loads(found) if found is not None else None
    except ValueError:  # the reader parsed it once already; a text it could not read is left as it is
        described = "unreadable"
    what: list[str] = []
    if described is None:
        texts[DESCRIPTION] = json.dumps({"Name": name or "dataset", "BIDSVersion": BIDS_VERSION,
                                         "HEDVersion": hed_version}, indent=2, ensure_ascii=False) + "\n"
        what.append(f"`{DESCRIPTION}` is new: your upload had none. It says `\"HEDVersion\": "
                    f"{json.dumps(hed_version)}`; copy that line into your dataset's own file rather than this one.")
    elif isinstance(described, dict) and not described.get("HEDVersion"):
        texts[DESCRIPTION] = json.dumps({**described, "HEDVersion": hed_version}, indent=2,
                                        ensure_ascii=False) + "\n"
        what.append(f"`{DESCRIPTION}` now has `\"HEDVersion\": {json.dumps(hed_version)}`, the schema the "
                    "sidecars were validated with: your dataset's had none, and without it a BIDS validator does "
                    "not check HED. Your other fields are kept.")
    else:
        declared = described.get("HEDVersion") if isinstance(described, dict) else None
        what.append(f"`{DESCRIPTION}` is yours, unchanged"
                    + (f" (its HEDVersion: {_version_text(declared)})." if declared else "."))
    listed = "\n".join(f"- `{path}`" for path in sorted(sidecars))
    texts[NOTE] = (
        "# HED sidecars written by HEDit\n\n"
        f"The sidecars below are new; the events files and the other sidecars are as you uploaded them.\n\n{listed}\n\n"
        f"Validated with HED {_version_text(hed_version)}.\n\n"
        + "\n".join(f"- {line}" for line in what) + "\n\n"
        "This zip holds only the files an upload keeps (events files, sidecars and the dataset description), "
        "never recordings: copy the new sidecars (and the HEDVersion) into your own copy of the dataset. This note "
        "is not part of the dataset; leave it out.\n")
    return replace(files, texts=texts)


__all__ = ["NOTE", "release_files"]
