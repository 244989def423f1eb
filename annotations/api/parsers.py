"""JSON request bodies with bounded nesting.

``json.loads`` recurses once per level: a body of 100,000 ``[`` is a ``RecursionError`` (a 500)
in the parser, or later in whatever walks the value.  The depth is measured first, without
recursion, and anything deeper than ``HEDIT_MAX_JSON_DEPTH`` is a 400.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from bidsdata.jsontext import json_depth

DEFAULT_MAX_DEPTH = 32


class TooDeep(ValueError):
    """A JSON text nests arrays and objects deeper than allowed."""


def check_json_depth(text: str, limit: int | None = None) -> None:
    """Raise :class:`TooDeep` when *text* nests deeper than *limit* (default ``HEDIT_MAX_JSON_DEPTH``)."""
    limit = limit if limit is not None else int(getattr(settings, "HEDIT_MAX_JSON_DEPTH", DEFAULT_MAX_DEPTH))
    if json_depth(text) > limit:
        raise TooDeep(f"JSON nests deeper than {limit} levels")


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser after a depth check: too deep is a 400 with one line, never a 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict[str, Any] | None = None) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        try:
            check_json_depth(text)
        except TooDeep as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        try:
            return super().parse(_Bytes(raw), media_type, parser_context)
        except RecursionError as exc:  # pragma: no cover - the depth check comes first
            raise ParseError("JSON parse error - nested too deep") from exc


class _Bytes:
    """The already-read body, readable again by the parent parser."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self, *args: Any) -> bytes:
        data, self._data = self._data, b""
        return data
