"""python manage.py evaluate: which model annotates best, on a gold CSV or on the lab's reviewed annotations.

With ``--model NAME`` (repeatable) or ``--reviewed PROJECT|all``, the rows become an evaluation set and each model
an evaluation: stored runs through the ordinary workflow and queue (:mod:`annotations.evaluation`), and the
evaluation table's figures for each model, ``--json`` one object per model. Without, the command of before:
``evaluate GOLD.csv --out PRED.csv`` annotates every row in this process (nothing stored), then scores.

The score is the referee's (``shared/eval/score_hed.py``): per row, the sets of short base tags,
lower-cased, values dropped; rows whose gold uses definitions are left out unless ``--all``. A
development set repeats itself (one dataset's sentence in many rows, several datasets' copies of
one sentence), so micro F1 alone rewards fitting those sentences. The command also reports F1
per dataset, the macro average over datasets, and micro F1 on the de-duplicated rows (the
first row of each distinct description).
"""

from __future__ import annotations

import asyncio
import csv
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.schema import DEFAULT_SCHEMA_VERSION
from agents.scoring import TagScorer, Tally, scorer_for, uses_definitions
from agents.workflow import InvalidInput, run_workflow
from annotations.evaluation import command as stored
from annotations.llm.client import chat_model_for
from annotations.runs.services import RequestError, build_options

logger = logging.getLogger(__name__)

_NO_DATASET = "(none)"


@dataclass
class Report:
    micro: Tally = field(default_factory=Tally)
    deduplicated: Tally = field(default_factory=Tally)
    datasets: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    valid: int = 0

    @property
    def macro_f1(self) -> float:
        return sum(t.f1 for t in self.datasets.values()) / len(self.datasets) if self.datasets else 0.0

    def lines(self) -> list[str]:
        out = [f"{'dataset':<12} {'rows':>4} {'P':>6} {'R':>6} {'F1':>6}"]
        out += [f"{name:<12} {t.rows:>4} {t.precision:6.3f} {t.recall:6.3f} {t.f1:6.3f}"
                for name, t in sorted(self.datasets.items())]
        m, d = self.micro, self.deduplicated
        out.append(f"micro F1 {m.f1:.3f} (P {m.precision:.3f} R {m.recall:.3f}, {m.rows} rows)")
        out.append(f"de-duplicated F1 {d.f1:.3f} (P {d.precision:.3f} R {d.recall:.3f}, "
                   f"{d.rows} distinct descriptions)")
        out.append(f"macro F1 over datasets {self.macro_f1:.3f} ({len(self.datasets)} datasets)")
        out.append(f"valid {self.valid}/{m.rows} ({self.valid / m.rows:.1%})" if m.rows else "no rows scored")
        return out


def description_key(text: str) -> str:
    """Two rows say the same when their words do, whatever the case, spacing or final stop."""
    return " ".join(text.lower().split()).rstrip(" .")


def score(rows: list[dict[str, str]], predictions: dict[str, str], scorer: TagScorer, *,
          include_definitions: bool = False) -> Report:
    """Micro, per-dataset, macro and de-duplicated scores of *predictions* against the rows' gold ``hed``."""
    report = Report()
    seen: set[str] = set()
    for row in rows:
        gold_text = row.get("hed") or ""
        if not include_definitions and uses_definitions(gold_text):
            continue
        prediction = predictions.get(row["id"], "")
        gold, pred = scorer.tags(gold_text), scorer.tags(prediction)
        report.micro.add(gold, pred)
        report.datasets[row.get("dataset") or _NO_DATASET].add(gold, pred)
        report.valid += scorer.is_valid(prediction)
        key = description_key(row["description"])
        if key not in seen:
            seen.add(key)
            report.deduplicated.add(gold, pred)
    return report


class Command(BaseCommand):
    help = ("Evaluate models on a gold CSV (columns description, hed) or on the reviewed annotations: with --model, "
            "stored evaluation runs and each model's figures (--json: one object per model); without, annotate "
            "every row in this process, write id, prediction to --out and score it.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("gold", nargs="?", help="CSV with columns id, description (and hed, dataset to score)")
        parser.add_argument("--model", action="append", default=[],
                            help="evaluate this model (offline, a model you configured, one the server offers); "
                                 "repeat for several. Stores the runs as evaluation runs")
        parser.add_argument("--reviewed", metavar="PROJECT|all",
                            help="evaluate on the reviewed annotations (of a dataset project, by name or id)")
        parser.add_argument("--user", help="whose configured models, runs and reviewed annotations (default: the "
                                           "server's models; the runs belong to nobody)")
        parser.add_argument("--json", action="store_true", help="print one JSON object per model")
        parser.add_argument("--no-wait", action="store_true", help="queue the evaluations and exit")
        parser.add_argument("--watch", action="store_true",
                            help="re-run every watched set whose model, prompts or schema changed, then exit")
        parser.add_argument("--out", help="where to write id, prediction (with --model: one model only)")
        parser.add_argument("--schema", default=DEFAULT_SCHEMA_VERSION, help="HED schema version")
        parser.add_argument("--max-attempts", type=int, default=3)
        parser.add_argument("--limit", type=int, default=0, help="only the first N rows")
        parser.add_argument("--score-schema", default="8.4.0", help="schema the scores use (the referee's default)")
        parser.add_argument("--all", action="store_true", help="also score rows whose gold uses definitions")
        parser.add_argument("--no-score", action="store_true", help="only write the predictions")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["verbosity"] < 2:
            for name in ("agents", "annotations"):  # each run's own failures are in the figures
                logging.getLogger(name).setLevel(logging.ERROR)
        if opts["watch"]:
            started = stored.watch(stored.user_named(opts["user"]))
            self.stdout.write(f"re-ran {len(started)} watched set{'s' if len(started) != 1 else ''}"
                              + "".join(f"\n  {b.set.name} with {b.model or 'the current model'}" for b in started))
            return
        if opts["model"] or opts["reviewed"]:
            self._stored(opts)
        else:
            self._in_process(opts)

    def _stored(self, opts: dict[str, Any]) -> None:
        if not opts["model"]:
            raise CommandError("name the models to evaluate with --model (offline, or a model you configured)")
        if bool(opts["gold"]) == bool(opts["reviewed"]):
            raise CommandError("give either a gold CSV or --reviewed PROJECT|all")
        if opts["out"] and len(opts["model"]) != 1:
            raise CommandError("--out writes one model's predictions: give one --model")
        user = stored.user_named(opts["user"])
        stored.check_models(user, opts["model"], opts["schema"])
        chosen = stored.evaluation_set(user, opts["gold"], opts["reviewed"], opts["limit"])
        batches = stored.start_all(chosen, user, opts["model"], opts["schema"], opts["max_attempts"])
        if opts["no_wait"]:
            for batch in batches:
                self.stdout.write(f"queued evaluation {batch.pk}: {chosen.name} with {batch.model_choice}")
            return
        tty = self.stderr.isatty()
        stored.wait_for(batches, (lambda line: self.stderr.write(f"\r{line}", ending="")) if tty else None)
        if tty:
            self.stderr.write("")
        done = stored.results(batches)
        if opts["out"]:
            count = stored.write_predictions(batches[0], Path(opts["out"]))
            self.stderr.write(f"wrote {count} predictions to {opts['out']}")
        if opts["json"]:
            self.stdout.write(stored.as_json(done))
        else:
            for line in stored.summary_lines(done):
                self.stdout.write(line)

    def _in_process(self, opts: dict[str, Any]) -> None:
        if not opts["gold"] or not opts["out"]:
            raise CommandError("give a gold CSV and --out PRED.csv (or --model NAME to store evaluation runs)")
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
        if opts["no_score"] or not rows or "hed" not in rows[0]:
            return
        report = score(rows, dict(predictions), scorer_for(opts["score_schema"]), include_definitions=opts["all"])
        for line in report.lines():
            self.stdout.write(line)

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
