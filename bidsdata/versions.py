"""The dataset's ``HEDVersion`` (``dataset_description.json``): read and checked against the bundled schemas."""

from __future__ import annotations

from bidsdata.archive import DatasetError, DatasetFiles
from bidsdata.members import DESCRIPTION_FILE


def check_hed_version(version: str | list[str]) -> None:
    """Refuse a HEDVersion hedtools cannot load from its bundled schemas (no network at run time)."""
    from agents.schema import UnknownSchemaVersion, check_version

    if not isinstance(version, str | list) or not all(isinstance(v, str) for v in
                                                      ([version] if isinstance(version, str) else version)):
        raise DatasetError(f"HEDVersion must be a version string or a list of them, not {version!r}",
                           path=DESCRIPTION_FILE)
    try:
        check_version(version)
    except UnknownSchemaVersion as exc:
        raise DatasetError(f"HEDVersion: {exc}", path=DESCRIPTION_FILE) from None


def read_hed_version(files: DatasetFiles) -> str | list[str] | None:
    """The dataset's HEDVersion, checked; ``None`` when there is no description or no HEDVersion."""
    if DESCRIPTION_FILE not in files.texts:
        return None
    description = files.json(DESCRIPTION_FILE)
    version = description.get("HEDVersion") if isinstance(description, dict) else None
    if version is None:
        return None
    check_hed_version(version)
    if isinstance(version, list) and len(version) == 1:
        return version[0]
    return version


__all__ = ["check_hed_version", "read_hed_version"]
