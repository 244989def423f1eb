"""python manage.py evaluate GOLD.csv --out PRED.csv: annotate every row."""

from __future__ import annotations

import asyncio
import csv
import logging
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.schema import DEFAULT_SCHEMA_VERSION
from agents.workflow import InvalidInput, run_workflow
from annotations.llm.client import chat_model_for
from annotations.runs.services import RequestError, build_options

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Annotate every row of a CSV (columns id, description) and write id, prediction."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("gold", help="CSV with columns id, description")
        parser.add_argument("--out", required=True, help="where to write id, prediction")
        parser.add_argument("--schema", default=DEFAULT_SCHEMA_VERSION, help="HED schema version")
        parser.add_argument("--max-attempts", type=int, default=3)
        parser.add_argument("--limit", type=int, default=0, help="only the first N rows")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            options = build_options({"schema_version": opts["schema"],
                                     "max_validation_attempts": opts["max_attempts"]})
        except RequestError as exc:
            raise CommandError(str(exc)) from exc
        rows = self._read(Path(opts["gold"]))
        if opts["limit"]:
            rows = rows[: opts["limit"]]
        llm = chat_model_for(None)
        out = Path(opts["out"])
        predictions = asyncio.run(self._annotate_all(rows, options, llm))
        with out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", "prediction"])
            writer.writerows(predictions)
        self.stdout.write(f"wrote {len(predictions)} predictions to {out}")

    @staticmethod
    def _read(path: Path) -> list[dict[str, str]]:
        try:
            with path.open(newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
        if rows and not {"id", "description"} <= set(rows[0]):
            raise CommandError(f"{path} needs the columns id and description")
        return rows

    @staticmethod
    async def _annotate_all(rows: list[dict[str, str]], options: Any, llm: Any) -> list[tuple[str, str]]:
        out = []
        for row in rows:
            try:
                state = await run_workflow(row["description"], options, llm=llm)
                prediction = state.annotation
            except InvalidInput as exc:
                logger.warning("row %s skipped: %s", row["id"], exc)
                prediction = ""
            out.append((row["id"], prediction))
        return out
