"""python manage.py annotate "TEXT": run and store one session."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.schema import DEFAULT_SCHEMA_VERSION
from annotations.models import AnnotationSession
from annotations.records import session_record
from annotations.runs.execution import execute_session
from annotations.runs.services import RequestError, build_options, create_session
from annotations.selectors import with_record_relations


class Command(BaseCommand):
    help = "Annotate one event description with HED and store the run."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("text", help="the event description")
        parser.add_argument("--schema", action="append", default=None,
                            help="HED schema version: standard (8.4.0), partnered library (score_2.1.0), or a list, "
                                 "repeated or comma-separated, with prefixed libraries (8.4.0,sc:score_1.0.0)")
        parser.add_argument("--max-attempts", type=int, default=3, help="validation attempts per round")
        parser.add_argument("--max-iterations", type=int, default=5, help="total annotation attempts")
        parser.add_argument("--assess", action="store_true", help="run the completeness assessment")
        parser.add_argument("--no-extend", action="store_true", help="forbid tag extensions")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["verbosity"] < 2:
            # The outcome is reported once, below; retries and failures need not be logged too.
            for name in ("agents", "annotations"):
                logging.getLogger(name).setLevel(logging.ERROR)
        try:
            options = build_options({"schema_version": ",".join(opts["schema"] or [DEFAULT_SCHEMA_VERSION]),
                                     "max_validation_attempts": opts["max_attempts"],
                                     "max_total_iterations": opts["max_iterations"],
                                     "run_assessment": opts["assess"], "no_extend": opts["no_extend"]})
            session = create_session(user=None, description=opts["text"], options=options)
        except RequestError as exc:
            raise CommandError(str(exc)) from exc
        asyncio.run(execute_session(session.pk))
        session = with_record_relations(AnnotationSession.objects.filter(pk=session.pk)).get()
        record = session_record(session)
        if opts["json"]:
            self.stdout.write(json.dumps(record, indent=2))
        else:
            self._print_human(record)
        if not session.is_valid or session.status != "succeeded":
            if session.error:
                self.stderr.write(session.error)
            raise SystemExit(1)

    def _print_human(self, record: dict[str, Any]) -> None:
        for it in record["iterations"]:
            self.stdout.write(f"attempt {it['number']}: {it['annotation']}")
            for err in it["errors"]:
                self.stdout.write(f"  {err['code']}: {err['message']}\n    hint: {err['hint']}")
        self.stdout.write(f"status: {record['status']}  valid: {record['is_valid']}  "
                          f"faithful: {record['is_faithful']}")
        self.stdout.write(f"annotation: {record['annotation']}")
        self.stdout.write(f"session: {record['session_id']}")
