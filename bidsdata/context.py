"""What a dataset says of a task, for the annotator: its README and its root task file.

BIDS puts ``TaskName``, ``TaskDescription`` and ``Instructions`` in the task's sidecar of its recordings
(``task-<label>_bold.json``, ``_eeg.json``...) at the dataset's root, and the study itself in the
``README``. The reader keeps those files (:attr:`.archive.DatasetFiles.context`, each bounded); this module
picks what the annotator reads, bounded again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

MAX_README_CHARS = 4000
"""The opening of the README kept for a task."""
MAX_FIELD_CHARS = 2000
"""The most kept of a task file's TaskName, TaskDescription or Instructions."""
_KEYS = {"task_name": "TaskName", "task_description": "TaskDescription", "instructions": "Instructions"}


@dataclass
class TaskContext:
    """The README's opening and the task file's ``TaskName``, ``TaskDescription`` and ``Instructions``
    ("" where the dataset does not say)."""

    readme: str = ""
    task_name: str = ""
    task_description: str = ""
    instructions: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TaskContext:
        """From stored JSON (keys it does not know are left out; missing ones are "")."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: str(v) for k, v in (data or {}).items() if k in known and v is not None})


def _text(value: object, limit: int) -> str:
    if isinstance(value, list):  # Instructions are sometimes given line by line
        value = " ".join(str(v) for v in value if isinstance(v, str | int | float))
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return ""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "\u2026"


def task_context(readme: str, task_files: Iterable[dict[str, Any]]) -> TaskContext:
    """*readme*'s opening, and each key from the first of *task_files* (parsed, plainest first) that has it."""
    found = TaskContext(readme=readme.strip()[:MAX_README_CHARS])
    for data in task_files:
        for attribute, key in _KEYS.items():
            if not getattr(found, attribute):
                setattr(found, attribute, _text(data.get(key), MAX_FIELD_CHARS))
    return found
