"""python manage.py validate "HED STRING": print each issue with its hedtools code."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.schema import DEFAULT_SCHEMA_VERSION, UnknownSchemaVersion
from agents.validation import validate_hed


class Command(BaseCommand):
    help = "Validate a HED string; exit 0 when valid, 1 when not."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hed", help="the HED string")
        parser.add_argument("--schema", default=DEFAULT_SCHEMA_VERSION, help="HED schema version")
        parser.add_argument("--no-extend", action="store_true", help="count tag extensions as errors")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            issues = validate_hed(opts["hed"], opts["schema"], no_extend=opts["no_extend"])
        except UnknownSchemaVersion as exc:
            raise CommandError(str(exc)) from exc
        for issue in issues:
            where = f" [{issue.tag}]" if issue.tag else ""
            self.stdout.write(f"{issue.severity.upper()} {issue.code}{where}: {issue.message}")
            self.stdout.write(f"  hint: {issue.hint}")
        errors = [i for i in issues if i.is_error]
        if errors:
            raise SystemExit(1)
        self.stdout.write("valid")
