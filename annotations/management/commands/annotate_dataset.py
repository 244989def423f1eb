"""python manage.py annotate_dataset PATH...: a BIDS dataset's events files to one validated sidecar per task."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Sum

from annotations.datasets.jobs import run_dataset_job
from annotations.datasets.services import DatasetRequestError, import_dataset, start_annotation
from annotations.datasets.sidecars import project_sidecars
from annotations.models import AnnotationSession
from bidsdata.archive import DatasetError, DatasetFiles, read_folder, read_uploads, read_zip


def read_paths(paths: list[str]) -> DatasetFiles:
    """A folder, a zip, or several events/sidecar files, read with the same checks as an upload."""
    if len(paths) == 1 and Path(paths[0]).is_dir():
        return read_folder(paths[0])
    if len(paths) == 1 and paths[0].lower().endswith(".zip"):
        if not Path(paths[0]).is_file():
            raise DatasetError("no such file", path=paths[0])
        return read_zip(paths[0], name=Path(paths[0]).name)
    uploads = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() or raw.lower().endswith(".zip"):
            raise DatasetError("give one folder, one zip, or events .tsv/.json files, not a mix", path=raw)
        if not path.is_file():
            raise DatasetError("no such file", path=raw)
        uploads.append((path.name, path.read_bytes()))
    return read_uploads(uploads)


class Command(BaseCommand):
    help = "Annotate every level of a BIDS dataset's events files and write one HED sidecar per task."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH",
                            help="a BIDS folder, a zip of one, or *_events.tsv / *_events.json files")
        parser.add_argument("--out", default=".", help="folder to write the sidecars into (default: here)")
        parser.add_argument("--schema", default=None, help="HED schema version (default: the dataset's)")
        parser.add_argument("--concurrency", type=int, default=4, help="levels annotated at once (default 4)")
        parser.add_argument("--ignore-existing-hed", action="store_true",
                            help="start from nothing even where the dataset's sidecars have HED")
        parser.add_argument("--name", default="", help="a name for the dataset project")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["verbosity"] < 2:
            for name in ("agents", "annotations"):
                logging.getLogger(name).setLevel(logging.ERROR)
        out = Path(opts["out"])
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out {out} is not a folder")
        try:
            files = read_paths(opts["paths"])
            project = import_dataset(user=None, files=files, name=opts["name"] or Path(opts["paths"][0]).name,
                                     schema_version=opts["schema"], ignore_existing_hed=opts["ignore_existing_hed"],
                                     concurrency=opts["concurrency"])
            sessions = start_annotation(project, user=None, enqueue=False)
        except (DatasetError, DatasetRequestError) as exc:
            raise CommandError(str(exc)) from exc
        except OSError as exc:
            raise CommandError(f"cannot read {exc.filename or opts['paths'][0]}: {exc.strerror}") from exc
        if sessions:
            asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], project.concurrency))
        out.mkdir(parents=True, exist_ok=True)
        report = self._write(project, out)
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for task in report["tasks"]:
                state = "valid" if task["valid"] else f"{len(task['issues'])} issue(s)"
                self.stdout.write(f"{task['sidecar']}: {task['levels_valid']}/{task['levels_total']} levels, {state}")
                for issue in task["issues"][:20]:
                    self.stdout.write(f"  {issue['code']}: {issue['message']}")
        if not all(task["valid"] for task in report["tasks"]):
            raise SystemExit(1)

    def _write(self, project: Any, out: Path) -> dict[str, Any]:
        tasks = []
        for result in project_sidecars(project):
            target = out / result.task.sidecar_name
            target.write_text(json.dumps(result.sidecar, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            issues = [{k: v for k, v in row.items() if k != "state"} for row in result.issue_rows()]
            tasks.append({"task": result.task.name, "sidecar": str(target), "valid": result.is_valid,
                          "levels_total": len(result.states),
                          "levels_valid": sum(1 for s in result.states if s.status in ("valid", "reviewed")),
                          "issues": issues})
        usage = AnnotationSession.objects.filter(dataset_level__column__task__project=project).aggregate(
            llm_calls=Sum("llm_call_count"), prompt_tokens=Sum("prompt_tokens"),
            completion_tokens=Sum("completion_tokens"), cost_usd=Sum("cost_usd"))
        return {"dataset_id": str(project.pk), "tasks": tasks,
                "usage": {k: (float(v) if k == "cost_usd" else int(v)) if v is not None else 0
                          for k, v in usage.items()}}
