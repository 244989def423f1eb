"""python manage.py design_matrix DATASET --task T --out DIR: hedtools' design matrices, one TSV per events file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.usage.cli import add_dataset_argument, one_line, opened, quiet
from bidsdata.usage.assembly import TYPE_TAGS
from bidsdata.usage.design import ENCODINGS, check_design, factor_table, matrix_name


class Command(BaseCommand):
    help = ("Write a task's design matrices (hedtools' HedTypeManager.get_factor_vectors): one TSV per events "
            "file, one row per event, and the type's summary.")

    def add_arguments(self, parser: CommandParser) -> None:
        add_dataset_argument(parser)
        parser.add_argument("--task", required=True, help="the task")
        parser.add_argument("--out", required=True, metavar="DIR", help="folder to write the matrices into")
        parser.add_argument("--type", default="Condition-variable", choices=TYPE_TAGS, dest="type_tag",
                            help="the type tag whose factors make the columns (default Condition-variable)")
        parser.add_argument("--encoding", default="one-hot", choices=ENCODINGS,
                            help="one-hot: a 0/1 column per level; categorical: a column per factor")

    def handle(self, *args: Any, **opts: Any) -> None:
        quiet(opts["verbosity"])
        with one_line("the design matrices"):
            type_tag = check_design(opts["type_tag"], opts["encoding"])
        out = Path(opts["out"])
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out {out} is not a folder")
        dataset = opened(opts["dataset"], opts["task"])
        events = dataset.tasks[0]
        written: list[Any] = []
        with one_line("the design matrices"):
            try:
                out.mkdir(parents=True, exist_ok=True)
                names: set[str] = set()
                for found in events.designs(type_tag, opts["encoding"]):
                    written.append(found)
                    if found.refused:
                        self.stderr.write(f"{found.path}: no design matrix: {found.refused}")
                        continue
                    name = matrix_name(found.path)
                    if name in names:  # two folders with one file name: keep their folders apart
                        name = found.path.replace("/", "_").removesuffix("_events.tsv") + "_design.tsv"
                    names.add(name)
                    (out / name).write_text(found.tsv(), encoding="utf-8")
                summary = events.design_summary(written, type_tag)
                for item in written:
                    item.rows = []  # written; the summary keeps the figures
                target = out / f"task-{events.task}_{type_tag.casefold()}_summary.json"
                target.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"--out {out}: cannot write there ({exc.strerror})") from None
        made = sum(1 for f in written if not f.refused)
        self.stdout.write(f"task {events.task}: {made} design matrices in {out} ({type_tag}, {opts['encoding']})")
        for row in factor_table(summary):
            what = f"{row['factor']}" + (f" = {row['level']}" if row["level"] else " (referenced directly)")
            self.stdout.write(f"  {row['events']:>8} events in {row['files']} files  {what}")
