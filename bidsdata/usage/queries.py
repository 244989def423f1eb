"""HED queries as hedtools reads them (``QueryHandler``), with the place a malformed one goes wrong.

hedtools' parser says *what* is wrong ("Parse error: Missing closing paren") but not *where*; a query box and
a command line need both. :func:`parse_query` runs hedtools' own parser and, when it refuses the query, reads
how far it had got (the token it stopped at) to name the character: the message stays hedtools' own.
Characters the query syntax has no use for (``!``, a lone ``|``) are skipped by hedtools' tokenizer without
a word; they are reported as warnings, since the query then means something other than what was typed.

Pure: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_QUERY_CHARS = 2000
"""The longest query string anyone may run (the portal's ``annotations.limits`` reads it too)."""

# The characters hedtools' tokenizer keeps (hed.models.query_handler.QueryHandler._tokenize): anything else is
# dropped from the query without a word.
_KEPT = re.compile(r"\[|\]|}|{|:|\)|\(|~|\?+|&&|\|\||,|[\"_\-a-zA-Z0-9/.^#*@]+|\s+")


class QueryError(ValueError):
    """A query hedtools cannot parse: hedtools' *message*, the query and the character (0-based) it fails at."""

    def __init__(self, query: str, message: str, position: int, *, index: int = 0) -> None:
        self.query = query
        self.message = message
        self.position = position
        self.index = index
        super().__init__(f"query {index + 1} {query!r} cannot be parsed at character {position + 1}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a search process, read in the asking one
        return (_rebuilt, (self.query, self.message, self.position, self.index))

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "index": self.index, "message": self.message, "position": self.position}


def _rebuilt(query: str, message: str, position: int, index: int) -> QueryError:
    return QueryError(query, message, position, index=index)


@dataclass
class QueryCheck:
    """What hedtools makes of one query string: ``error`` (None when it parses) and ``warnings``."""

    query: str
    error: QueryError | None = None
    warnings: list[str] = field(default_factory=list)
    parsed: str = ""
    """hedtools' reading of the query (its expression tree as text), when it parses."""

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "ok": self.ok, "error": self.error.to_dict() if self.error else None,
                "warnings": self.warnings, "parsed": self.parsed}


def _token_starts(text: str, tokens: list[Any]) -> list[int]:
    """Where each of hedtools' tokens starts in *text* (the tokens are read left to right from it)."""
    starts, at = [], 0
    folded = text.casefold()
    for token in tokens:
        found = folded.find(token.text, at)
        found = at if found < 0 else found
        starts.append(found)
        at = found + len(token.text)
    return starts


def _ignored(text: str) -> list[str]:
    """Warnings for the characters hedtools' tokenizer skips."""
    notes, at = [], 0
    for match in _KEPT.finditer(text):
        if match.start() > at:
            notes.append(f"{text[at:match.start()]!r} at character {at + 1} is not part of the query syntax; "
                         "hedtools ignores it")
        at = match.end()
    if at < len(text):
        notes.append(f"{text[at:]!r} at character {at + 1} is not part of the query syntax; hedtools ignores it")
    return notes


def parse_query(text: str, *, index: int = 0) -> Any:
    """hedtools' ``QueryHandler`` for *text*; :class:`QueryError` with hedtools' message and the position."""
    from hed.models.query_handler import QueryHandler

    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(text[:40] + "…", f"a query is at most {MAX_QUERY_CHARS:,} characters, not {len(text):,}",
                         MAX_QUERY_CHARS, index=index)
    if not text.strip():
        raise QueryError(text, "the query is empty", 0, index=index)
    handler = QueryHandler.__new__(QueryHandler)  # hedtools' own parser, its state kept to say where it stopped
    handler.tokens, handler.at_token, handler._org_string = [], -1, text
    try:
        handler.tree = handler._parse(text.casefold())
    except Exception as exc:  # HedQueryError, or an IndexError/AttributeError of a query hedtools never foresaw
        message = " ".join(str(exc).split()) or type(exc).__name__
        starts = _token_starts(text, handler.tokens)
        stop = handler.at_token + 1
        position = starts[stop] if 0 <= stop < len(starts) else len(text.rstrip())
        raise QueryError(text, message, min(position, len(text)), index=index) from None
    return handler


def check_query(text: str, *, index: int = 0) -> QueryCheck:
    """The verdict on one query as it is typed: hedtools' error with its position, and ignored characters."""
    check = QueryCheck(query=text)
    try:
        handler = parse_query(text, index=index)
    except QueryError as exc:
        check.error = exc
        return check
    check.parsed = " ".join(str(handler).split())
    check.warnings = _ignored(text)
    return check


def compile_queries(queries: list[str]) -> list[Any]:
    """hedtools' handlers for every query, in order; the first malformed one raises :class:`QueryError`."""
    if not queries:
        raise QueryError("", "give at least one query", 0)
    return [parse_query(text, index=i) for i, text in enumerate(queries)]


__all__ = ["MAX_QUERY_CHARS", "QueryCheck", "QueryError", "check_query", "compile_queries", "parse_query"]
