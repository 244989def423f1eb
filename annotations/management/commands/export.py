"""python manage.py export --format csv|jsonl [--out FILE] [history filters]."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.exports.formats import FORMATS, ExportError, FilterError, check_format, filtered, stream_export
from annotations.models import AnnotationSession

logger = logging.getLogger(__name__)

# Command-line options that map one to one onto history filter parameters.
FILTER_OPTIONS = {
    "status": "status",
    "q": "q",
    "user": "user",
    "reviewed": "reviewed",
    "verdict": "verdict",
    "min_rating": "min_rating",
    "schema_version": "schema_version",
    "valid": "valid",
    "date_from": "date_from",
    "date_to": "date_to",
}


class Command(BaseCommand):
    help = "Export sessions (all users') as CSV or JSONL, with the history filters."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", required=True, choices=sorted(FORMATS), help="export format")
        parser.add_argument("--out", help="file to write (default: standard output)")
        parser.add_argument("--status", help="session status, e.g. succeeded")
        parser.add_argument("--q", help="text search, as in history")
        parser.add_argument("--user", help="username of the sessions' owner")
        parser.add_argument("--reviewed", choices=["unrated", "reviewed"], help="review state")
        parser.add_argument("--verdict", choices=["accept", "needs-fix", "reject"], help="review verdict")
        parser.add_argument("--min-rating", dest="min_rating", help="minimum mean rating (1-5)")
        parser.add_argument("--schema-version", dest="schema_version", help="HED schema version")
        parser.add_argument("--valid", choices=["valid", "invalid", "unknown"], help="validity of the annotation")
        parser.add_argument("--date-from", dest="date_from", help="created on or after (YYYY-MM-DD)")
        parser.add_argument("--date-to", dest="date_to", help="created on or before (YYYY-MM-DD)")
        parser.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE",
                            help="any other history filter parameter; repeatable")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            fmt = check_format(opts["format"])
        except ExportError as exc:
            raise CommandError(exc.message) from exc
        params = {param: str(opts[name]) for name, param in FILTER_OPTIONS.items() if opts.get(name)}
        for item in opts["filter"]:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise CommandError(f"--filter wants KEY=VALUE, not {item!r}")
            params[key.strip()] = value
        try:
            qs = filtered(AnnotationSession.objects.all(), params)
        except FilterError as exc:
            raise CommandError(str(exc)) from exc
        out_path = opts.get("out")
        if out_path:
            with Path(out_path).open("w", encoding="utf-8", newline="") as fh:
                written = _write(fh.write, stream_export(fmt, qs))
            logger.info("wrote %d characters of %s to %s", written, fmt.name, out_path)
        else:
            _write(lambda chunk: self.stdout.write(chunk, ending=""), stream_export(fmt, qs))
            self.stdout.flush()


def _write(write: Callable[[str], Any], chunks: Iterable[str]) -> int:
    # Written as produced, one page at a time, so nothing larger than a page is held.
    total = 0
    for chunk in chunks:
        write(chunk)
        total += len(chunk)
    return total
