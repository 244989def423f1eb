"""``manage.py evaluate ... --model NAME``: evaluation runs from the command line, stored and queued like the
page's, then the table's figures of each model (one JSON object per model with ``--json``)."""

from __future__ import annotations

import csv
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from annotations.errors import RequestError
from annotations.evaluation.batches import cancel_evaluation, configuration_now, progress_of, start_evaluation
from annotations.evaluation.scope import Scope
from annotations.evaluation.selectors import evaluation_table, run_facts
from annotations.evaluation.sets import Item, gold_set, read_gold, reviewed_set, save_set
from annotations.evaluation.table import ModelRow
from annotations.evaluation.watch import rerun_changed
from annotations.models import AnnotationSession, DatasetProject, EvaluationBatch, EvaluationSet, SetSource
from annotations.runs.services import build_options

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.5


def user_named(name: str | None) -> Any:
    if not name:
        return None
    found = get_user_model().objects.filter(username=name).first()
    if found is None:
        raise CommandError(f"--user {name}: no such user")
    return found


def _project(user: Any, name: str) -> DatasetProject:
    from annotations.datasets.selectors import visible_projects

    projects = DatasetProject.objects.all() if user is None else visible_projects(user)
    found = [p for p in projects.filter(name=name)] or [p for p in projects if str(p.pk) == name]
    if len(found) != 1:
        raise CommandError(f"--reviewed {name}: {'no' if not found else 'more than one'} project of that name or id")
    return found[0]


def evaluation_set(user: Any, gold: str | None, reviewed: str | None, limit: int) -> EvaluationSet:
    """The set the command evaluates: a gold CSV's rows (the first *limit*), or the reviewed annotations."""
    try:
        if reviewed is not None:
            return reviewed_set(user, None if reviewed == "all" else _project(user, reviewed))
        path = Path(gold or "")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
        except UnicodeDecodeError:
            raise CommandError(f"{path}: not UTF-8 text") from None
        if limit:
            items: list[Item] = read_gold(text)[:limit]
            return save_set(owner=user, name=f"{path.name} (first {len(items)})", source=SetSource.GOLD, items=items)
        return gold_set(user, path.name, text)
    except RequestError as exc:
        raise CommandError(f"{gold or reviewed}: {exc.message}") from exc


@dataclass
class ModelResult:
    choice: str
    batch: EvaluationBatch
    rows: list[ModelRow]

    def objects(self) -> list[dict[str, Any]]:
        return [{"choice": self.choice, "evaluation": str(self.batch.pk), "set": self.batch.set.name,
                 "status": self.batch.status, **row.as_dict()} for row in self.rows]


def check_models(user: Any, models: Sequence[str], schema: str) -> None:
    """Every model can run (before anything is stored), else a one-line error naming the first that cannot."""
    try:
        version = build_options({"schema_version": schema}).schema_version
    except RequestError as exc:
        raise CommandError(f"--schema {schema}: {exc.message}") from exc
    for name in models:
        _, reason = configuration_now(user, name, version)
        if reason:
            raise CommandError(f"--model {name}: {reason}")


def start_all(chosen: EvaluationSet, user: Any, models: Sequence[str], schema: str,
              max_attempts: int) -> list[EvaluationBatch]:
    batches = []
    for name in models:
        try:
            batches.append(start_evaluation(chosen, user=user, model=name, schema_version=schema,
                                            max_attempts=max_attempts))
        except RequestError as exc:
            for started in batches:
                cancel_evaluation(started, None)
            raise CommandError(f"--model {name}: {exc.message}") from exc
    return batches


def wait_for(batches: Sequence[EvaluationBatch], report: Callable[[str], None] | None = None,
             sleep: Callable[[float], None] = time.sleep) -> None:
    """Until every batch ended, telling *report* each time one moves; Ctrl-C cancels them all."""
    last = ""
    try:
        while True:
            for batch in batches:
                batch.refresh_from_db()
            line = "  ".join(f"{b.model_choice or b.model}: {progress_of(b).done}/{b.total}" for b in batches)
            if line != last and report is not None:
                report(line)
            last = line
            if all(b.status != "running" for b in batches):
                return
            sleep(POLL_SECONDS)  # the runs go on in the task backend's threads or in hedit_worker
    except KeyboardInterrupt:
        for batch in batches:
            cancel_evaluation(batch, None)
        raise CommandError("interrupted: the evaluations were cancelled") from None


def results(batches: Sequence[EvaluationBatch]) -> list[ModelResult]:
    return [ModelResult(b.model_choice, b, evaluation_table(Scope(batches=(b.pk,)), None).rows) for b in batches]


def write_predictions(batch: EvaluationBatch, out: Path) -> int:
    """The batch's predictions as the referee reads them (id, prediction), in the set's order."""
    facts = {f.item_id: f for f in run_facts(AnnotationSession.objects.filter(evaluation_batch=batch))}
    rows = [(item.key, facts[item.pk].prediction if item.pk in facts else "")
            for item in batch.set.items.order_by("position")]
    try:
        with out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", "prediction"])
            writer.writerows(rows)
    except OSError as exc:
        raise CommandError(f"--out {out}: cannot write it ({exc.strerror})") from exc
    return len(rows)


def _figure(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def summary_lines(done: Sequence[ModelResult]) -> list[str]:
    lines = []
    for evaluated in done:
        for row in evaluated.rows:
            tags, interval = row.tags, row.tags.interval
            span = f" [{interval.low:.3f}, {interval.high:.3f}]" if interval else ""
            cost = f"${row.mean_cost:.5f}/run" if row.mean_cost else "no cost"
            latency = _figure(row.latency_p50, 2)
            lines.append(f"{evaluated.choice or row.configuration.model}: {row.configuration.label}")
            lines.append(f"  runs {row.runs}  valid first {_figure(row.first_valid)} final {_figure(row.final_valid)}  "
                         f"attempts {_figure(row.mean_attempts, 2)}")
            lines.append(f"  F1 {_figure(tags.f1)}{span} (P {_figure(tags.precision)} R {_figure(tags.recall)}, "
                         f"n {tags.n}); definitions expanded {_figure(row.tags_expanded.f1)}; without definition "
                         f"rows {_figure(row.tags_referee.f1)} (n {row.tags_referee.n})")
            lines.append(f"  {cost}, {_figure(row.mean_tokens, 0)} tokens/run, latency p50 {latency} s "
                         f"p95 {_figure(row.latency_p95, 2)} s; failed {row.failed}, timeouts {row.timeouts}, "
                         f"invalid replies {row.invalid_replies}, refusals {row.refusals}")
    return lines


def as_json(done: Sequence[ModelResult]) -> str:
    return json.dumps([obj for evaluated in done for obj in evaluated.objects()], indent=2)


def watch(user: Any) -> list[EvaluationBatch]:
    """Re-run each watched set whose owner's model, prompts or schema changed since its last evaluation."""
    try:
        return rerun_changed(user)
    except RequestError as exc:
        raise CommandError(exc.message) from exc
