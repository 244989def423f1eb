"""The one error of the dataset reader: an upload we refuse, with a message naming the problem and file."""

from __future__ import annotations


class DatasetError(ValueError):
    """An upload we refuse, with one message naming the problem and, where there is one, the file."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)
