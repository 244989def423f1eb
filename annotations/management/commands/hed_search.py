"""python manage.py hed_search DATASET QUERY...: hedtools' queries over every events row of a dataset's tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.usage.cli import add_dataset_argument, number, one_line, opened, quiet
from bidsdata.cells import safe_row
from bidsdata.usage import Options
from bidsdata.usage.queries import compile_queries


class Command(BaseCommand):
    help = ("Search a dataset's events with hedtools' HED queries (&&, ||, ~, @, [...], {...}, {...:}, ?, ??, ???, "
            "wildcards): the rows each query matches, per task.")

    def add_arguments(self, parser: CommandParser) -> None:
        add_dataset_argument(parser)
        parser.add_argument("queries", nargs="+", metavar="QUERY", help="a HED query, as hedtools reads it")
        parser.add_argument("--task", default=None, help="only this task")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--out", metavar="ROWS.tsv", default=None,
                            help="write every matching row: file, row (0-based), onset, one 0/1 column per query")
        parser.add_argument("--remove-types", default="", metavar="Condition-variable,Task",
                            help="take these type tags (and their definitions' groups) out of each row first")
        parser.add_argument("--no-context", action="store_true",
                            help="leave out the ongoing events (Onset/Offset/Duration/Delay context) of each row")
        parser.add_argument("--expand-defs", action="store_true", help="replace each Def/... with its definition")

    def handle(self, *args: Any, **opts: Any) -> None:
        quiet(opts["verbosity"])
        queries = list(opts["queries"])
        with one_line("the search"):
            compile_queries(queries)  # a malformed query fails before the dataset is read
        options = Options.of(include_context=not opts["no_context"], replace_defs=opts["expand_defs"],
                             remove_types=opts["remove_types"])
        dataset = opened(opts["dataset"], opts["task"])
        report: dict[str, Any] = {"schema": dataset.version, "queries": queries, "options": options.to_dict(),
                                  "tasks": {}}
        out = Path(opts["out"]) if opts["out"] else None
        with one_line("the search"):
            for events in dataset.tasks:
                counts = events.counts(queries, options)
                report["tasks"][events.task] = {
                    "files": events.files, "rows": counts.events,
                    "matches": dict(zip(queries, counts.matches, strict=True)),
                    "refused": {f.path: f.refused for f in counts.refused}}
                for refused in counts.refused:  # named, the rest of the task searched
                    self.stderr.write(f"{refused.path}: hedtools cannot read it: {refused.refused}")
            if out is not None:
                self._write_rows(out, dataset, queries, options)
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        for task, figures in report["tasks"].items():
            self.stdout.write(f"task {task}: {figures['files']} files, {figures['rows']} rows")
            for query, matches in figures["matches"].items():
                self.stdout.write(f"  {matches:>8}  {query}")

    def _write_rows(self, out: Path, dataset: Any, queries: list[str], options: Options) -> None:
        try:
            with out.open("w", encoding="utf-8", newline="") as handle:
                handle.write("\t".join(safe_row(["file", "row", "onset", *queries])) + "\n")
                for events in dataset.tasks:
                    for row in events.rows(queries, options):
                        cells = [row.path, row.row, number(row.onset), *row.answers]
                        handle.write("\t".join(safe_row(cells)) + "\n")
        except OSError as exc:
            raise CommandError(f"--out {out}: cannot write it ({exc.strerror})") from None
