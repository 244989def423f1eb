"""What one dataset upload may cost: bytes, entries, columns, rows and levels, all checked while reading.

Every limit is enforced as soon as it is crossed (a header with too many columns is refused before any
row is read, a zip's overall expansion before any entry is inflated), so a hostile upload costs at most
what the limits allow. The Django side fills :class:`UploadLimits` from ``HEDIT_UPLOAD_*`` settings;
this package stays free of Django.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from bidsdata.errors import DatasetError

MiB = 1024 * 1024


@dataclass(frozen=True)
class UploadLimits:
    """The ceilings of one upload; each field's setting is ``HEDIT_UPLOAD_`` + its name in capitals."""

    max_archive_bytes: int = 50 * MiB
    """Largest upload: the zip file, or the sum of the files uploaded one by one."""
    max_entries: int = 10_000
    """Most entries (files and folders) in an archive or folder."""
    max_expanded_bytes: int = 100 * MiB
    """Largest total size of the files kept (events TSVs, sidecars, dataset_description.json) once read."""
    max_ratio: int = 100
    """Largest ratio of an archive's declared expanded size to its own size (and of any entry's)."""
    max_columns: int = 200
    """Most columns in one events file."""
    max_rows: int = 2_000_000
    """Most events rows read for the inventory, all files together."""
    max_distinct_values: int = 2_000
    """Distinct values counted per column; past it a column is a value column (its first ones kept)."""
    max_levels_per_column: int = 2_000
    """Most levels a sidecar may declare for one column (``Levels`` and ``HED`` keys)."""
    max_levels_per_task: int = 5_000
    """Most categorical levels in one task, declared and found together."""
    max_sidecar_bytes: int = 1 * MiB
    """Largest sidecar (``*_events.json``): hedtools validates each one as it is imported."""
    max_json_depth: int = 32
    """Deepest nesting of arrays and objects in a JSON file."""

    @staticmethod
    def setting(name: str) -> str:
        return f"HEDIT_UPLOAD_{name.upper()}"

    @classmethod
    def from_mapping(cls, values: dict[str, object]) -> UploadLimits:
        """Limits from a mapping of setting names (``HEDIT_UPLOAD_MAX_COLUMNS``...) to whole numbers.

        Raises:
            ValueError: a name that is no limit, or a value that is not a positive whole number.
        """
        known = {cls.setting(f.name): f.name for f in fields(cls)}
        chosen: dict[str, int] = {}
        for setting, value in values.items():
            if setting not in known:
                raise ValueError(f"{setting} is not an upload limit; known: {', '.join(sorted(known))}")
            try:
                number = int(str(value))
            except ValueError:
                raise ValueError(f"{setting} must be a positive whole number, not {value!r}") from None
            if number < 1:
                raise ValueError(f"{setting} must be a positive whole number, not {value!r}")
            chosen[known[setting]] = number
        return cls(**chosen)


class LimitExceeded(DatasetError):
    """An upload past one of :class:`UploadLimits`; the message names the limit and its setting."""

    def __init__(self, what: str, limit_name: str, limit: int, *, path: str | None = None) -> None:
        self.setting = UploadLimits.setting(limit_name)
        super().__init__(f"{what}, more than the limit of {limit:,} ({self.setting})", path=path)


# --- names the app stores: fixed by their database columns, not settings -------------------------------
# PostgreSQL refuses a longer value (DataError) where SQLite would store it; the reader refuses it first,
# the same on both. annotations.models declares its columns with these numbers.

MAX_PATH_CHARS = 1024
"""A kept file's path inside the dataset."""
MAX_TASK_CHARS = 128
"""A task label (``task-<label>``)."""
MAX_NAME_CHARS = 255
"""An events column's name, a level (a value of a categorical column), a sidecar's file name."""
MAX_UNITS_CHARS = 64
"""A column's ``Units``."""


def check_length(what: str, value: str, limit: int, *, path: str | None = None) -> str:
    """*value* if it has at most *limit* characters, else a :class:`DatasetError` naming *what* and the limit.

    The message shows the value's start only: the whole of it may be thousands of characters.
    """
    if len(value) <= limit:
        return value
    raise DatasetError(f"{what} {value[:40]!r}... is {len(value):,} characters long, more than the {limit:,} "
                       "characters stored for it", path=path)
