"""python manage.py annotate_dataset PATH...: a BIDS dataset's events files to one validated sidecar per task."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path, PurePosixPath
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Sum

from annotations.datasets.jobs import run_dataset_job
from annotations.datasets.question_answers import apply_descriptions
from annotations.datasets.questions import open_question_count, project_questions, shared_questions
from annotations.datasets.results import refresh_project, stored_quality
from annotations.datasets.selectors import project_files
from annotations.datasets.services import DatasetRequestError, import_dataset, start_annotation
from annotations.models import AnnotationSession
from bidsdata.archive import DatasetError, DatasetFiles, read_folder, read_uploads, read_zip
from bidsdata.inheritance import lower_sidecars
from bidsdata.questions import (
    MAX_TABLE_BYTES,
    Answer,
    AnswersError,
    Question,
    decode_table,
    questions_table,
    read_answers,
)


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


def read_descriptions(path: str | None) -> list[Answer]:
    """The filled rows of a lab's descriptions table (none without *path*)."""
    if path is None:
        return []
    try:
        with Path(path).open("rb") as handle:  # no further than the limit: a device may never end
            data = handle.read(MAX_TABLE_BYTES + 1)
    except OSError as exc:
        raise CommandError(f"--descriptions {path}: cannot read it ({exc.strerror})") from exc
    try:
        return read_answers(decode_table(data))
    except AnswersError as exc:
        raise CommandError(f"--descriptions {path}: {exc}") from exc


def apply_or_forget(project: Any, answers: list[Answer]) -> None:
    """Store the lab's descriptions, or (a column or level the dataset lacks) the project not at all."""
    try:
        apply_descriptions(project, answers)
    except DatasetRequestError as exc:
        project.delete()
        raise CommandError(f"--descriptions: {exc}") from exc


def write_questions(project: Any, target: Path) -> None:
    """The project's open questions as a table the lab fills in and hands back with --descriptions."""
    # One row per column and level: an answer is applied to every task that has them.
    found = [Question(q.column.name, q.level.value if q.level is not None else None, q.text)
             for q in shared_questions(project_questions(project))]
    try:
        target.write_text(questions_table(found), encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"--questions {target}: cannot write it ({exc.strerror})") from exc


def _figures(result: Any) -> dict[str, Any]:
    """The quality line stored with the sidecar: rows passing hedtools' event checks, distinct levels, factors."""
    found = stored_quality(result)
    return found[0].to_dict() if found is not None else {}


class Command(BaseCommand):
    help = "Annotate every level of a BIDS dataset's events files and write one HED sidecar per task."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH",
                            help="a BIDS folder, a zip of one, or *_events.tsv / *_events.json files")
        parser.add_argument("--out", default=".", help="folder to write the sidecars into (default: here)")
        parser.add_argument("--schema", action="append", default=None,
                            help="HED schema version (default: the dataset's): standard (8.4.0), partnered library "
                                 "(score_2.1.0), or a list, repeated or comma-separated (8.4.0,sc:score_1.0.0)")
        parser.add_argument("--concurrency", type=int, default=4, help="levels annotated at once (default 4)")
        parser.add_argument("--ignore-existing-hed", action="store_true",
                            help="start from nothing even where the dataset's sidecars have HED")
        parser.add_argument("--name", default="", help="a name for the dataset project")
        parser.add_argument("--user", default=None, metavar="USERNAME",
                            help="the user who owns the project and its runs (default: none, shown as 'command line')")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--descriptions", metavar="FILE.tsv", default=None,
                            help="the lab's descriptions, applied before annotating: a TSV with a header row and "
                                 "columns column, level, description (level empty: the column's description)")
        parser.add_argument("--questions", metavar="FILE.tsv", default=None,
                            help="write the open questions after the run, in the --descriptions form (with the "
                                 "description empty and a question column), for the lab to fill in")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["verbosity"] < 2:
            for name in ("agents", "annotations"):
                logging.getLogger(name).setLevel(logging.ERROR)
        out = Path(opts["out"])
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out {out} is not a folder")
        owner = None
        if opts["user"] is not None:
            users = get_user_model()
            owner = users._default_manager.filter(**{users.USERNAME_FIELD: opts["user"]}).first()
            if owner is None:
                raise CommandError(f"--user {opts['user']}: no such user")
        try:
            files = read_paths(opts["paths"])
            answers = read_descriptions(opts["descriptions"])
            # The runs are the owner's (create_level_sessions), not counted in their quota: a command-line job.
            project = import_dataset(user=owner, files=files, name=opts["name"] or Path(opts["paths"][0]).name,
                                     schema_version=",".join(opts["schema"]) if opts["schema"] else None,
                                     ignore_existing_hed=opts["ignore_existing_hed"],
                                     concurrency=opts["concurrency"])
            apply_or_forget(project, answers)
            sessions = start_annotation(project, user=None, enqueue=False)
        except (DatasetError, DatasetRequestError) as exc:
            raise CommandError(str(exc)) from exc
        except OSError as exc:
            raise CommandError(f"cannot read {exc.filename or opts['paths'][0]}: {exc.strerror}") from exc
        try:
            if sessions:
                asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], project.concurrency))
            out.mkdir(parents=True, exist_ok=True)
            report = self._write(project, out)
        except Exception as exc:  # exit 1 with one line, never a traceback; the log and the project keep the rest
            logging.getLogger(__name__).exception("dataset %s: the job failed", project.pk)
            raise CommandError(f"the job failed: {type(exc).__name__}: {exc}".splitlines()[0][:300]) from exc
        if opts["questions"]:
            write_questions(project, Path(opts["questions"]))
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
        results = list(refresh_project(project))
        for result in results:
            # A sidecar's name is its path in the dataset: one below the root keeps its folders under --out.
            target = out.joinpath(*PurePosixPath(result.task.sidecar_name).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(result.sidecar, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            issues = [{k: v for k, v in row.items() if k != "state"} for row in result.issue_rows()]
            tasks.append({"task": result.task.name, "sidecar": str(target), "valid": result.is_valid,
                          "levels_total": len(result.states),
                          "levels_valid": sum(1 for s in result.states if s.outcome in ("valid", "reviewed")),
                          "open_questions": open_question_count(project, result.task, result.states),
                          "quality": _figures(result), "issues": issues})
        # A sidecar below the root that redefines a column would hide the HED written at the root there (BIDS
        # inheritance): it is written too, with that column's HED, at its own path under --out.
        lower = lower_sidecars(project_files(project), {r.task.sidecar_name: r.sidecar for r in results},
                               {r.task.sidecar_name: list(r.task.events_files) for r in results})
        for path, content in lower.items():
            target = out.joinpath(*PurePosixPath(path).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        usage = AnnotationSession.objects.filter(dataset_level__column__task__project=project).aggregate(
            llm_calls=Sum("llm_call_count"), prompt_tokens=Sum("prompt_tokens"),
            completion_tokens=Sum("completion_tokens"), cost_usd=Sum("cost_usd"))
        return {"dataset_id": str(project.pk), "tasks": tasks, "lower_sidecars": sorted(lower),
                "usage": {k: (float(v) if k == "cost_usd" else int(v)) if v is not None else 0
                          for k, v in usage.items()}}
