"""python manage.py hed_summary DATASET: hedtools' tag counts per task, grouped, and the design summary."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from annotations.usage.cli import add_dataset_argument, one_line, opened, quiet
from bidsdata.usage.design import factor_table

SHOWN_TAGS = 8
"""Tags printed per group (--json has them all)."""


class Command(BaseCommand):
    help = ("What a dataset's tasks contain: hedtools' tag counts (events and files per tag), grouped as the HED "
            "summary guide groups them, and the conditions hedtools finds.")

    def add_arguments(self, parser: CommandParser) -> None:
        add_dataset_argument(parser)
        parser.add_argument("--task", default=None, help="only this task")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **opts: Any) -> None:
        quiet(opts["verbosity"])
        dataset = opened(opts["dataset"], opts["task"])
        report: dict[str, Any] = {"schema": dataset.version, "tasks": {}}
        with one_line("the summary"):
            for events in dataset.tasks:
                tags = events.summary()
                designs = list(events.designs())
                design = events.design_summary(designs, "Condition-variable")
                report["tasks"][events.task] = {**tags, "design": design, "factors": factor_table(design)}
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        for task, found in report["tasks"].items():
            self.stdout.write(f"task {task}: {found['files']} files, {found['total_events']} events")
            for path, reason in found["refused"].items():
                self.stdout.write(f"  refused {path}: {reason}")
            for group in found["groups"]:
                if not group["tags"]:
                    continue
                shown = ", ".join(f"{t['tag']} {t['events']}" for t in group["tags"][:SHOWN_TAGS])
                more = len(group["tags"]) - SHOWN_TAGS
                self.stdout.write(f"  {group['title']}: {shown}" + (f" (+{more} more)" if more > 0 else ""))
            for row in found["factors"]:
                what = row["factor"] + (f" = {row['level']}" if row["level"] else " (referenced directly)")
                self.stdout.write(f"  condition {what}: {row['events']} events in {row['files']} files")
