"""Model fields of our own."""

from __future__ import annotations

import zlib
from typing import Any

from django.db import models

_SLICE = 1 << 20  # characters encoded at a time: a whole file encoded at once would be one more full copy


class CompressedTextField(models.BinaryField):
    """Text stored zlib-compressed, read back as ``str``.

    Events files are large and repetitive: compressed they take a fraction of the database's disk, and
    the database driver copies (SQLite twice) only the compressed bytes when a file is stored.
    """

    description = "Text (stored compressed)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("editable", True)
        super().__init__(*args, **kwargs)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if isinstance(value, str):
            value = compress(value)
        return super().get_db_prep_value(value, connection, prepared)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> str | None:
        return None if value is None else zlib.decompress(bytes(value)).decode("utf-8")

    def to_python(self, value: Any) -> Any:
        if isinstance(value, bytes | memoryview):
            return zlib.decompress(bytes(value)).decode("utf-8")
        return value


def compress(text: str) -> bytes:
    """*text* as UTF-8, deflated a slice at a time (level 1: several times smaller, at 100 MB/s)."""
    packer = zlib.compressobj(1)
    parts = [packer.compress(text[i:i + _SLICE].encode("utf-8")) for i in range(0, len(text), _SLICE)]
    parts.append(packer.flush())
    return b"".join(parts)
