"""python manage.py evaluate GOLD.csv --out PRED.csv: annotate every row, then score against the gold HED.

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
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.schema import DEFAULT_SCHEMA_VERSION, get_schema
from agents.workflow import InvalidInput, run_workflow
from annotations.llm.client import chat_model_for
from annotations.runs.services import RequestError, build_options

logger = logging.getLogger(__name__)

_DEFINITIONS = re.compile(r"\b(Def|Definition|Def-expand)/", re.IGNORECASE)
_COLUMN_REF = re.compile(r"\{[^}]*\}")
_NO_DATASET = "(none)"


@dataclass
class Tally:
    """True positives, false positives and false negatives of tags over some rows."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    rows: int = 0

    def add(self, gold: set[str], pred: set[str]) -> None:
        self.tp += len(gold & pred)
        self.fp += len(pred - gold)
        self.fn += len(gold - pred)
        self.rows += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        total = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / total if total else 1.0


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


class Scorer:
    """Short base tags of HED strings, and their validity, as the referee computes them."""

    def __init__(self, version: str) -> None:
        from hed.validator import HedValidator

        self.schema = get_schema(version)  # the process's one parsed copy (agents.schema), shared with the runs
        self.validator = HedValidator(self.schema)

    def tags(self, text: str) -> set[str]:
        from hed.models import HedString

        text = re.sub(r",\s*,", ",", _COLUMN_REF.sub("", text or "")).strip(" ,")
        if not text:
            return set()
        try:
            found = HedString(text, self.schema).get_all_tags()
        except Exception:  # an unparsable string earns no credit, as with the referee
            return set()
        return {(t.short_base_tag or t.org_base_tag or str(t)).strip().lower() for t in found}

    def is_valid(self, text: str) -> bool:
        from hed.errors import ErrorSeverity
        from hed.models import HedString

        if not (text or "").strip():
            return False
        issues = self.validator.validate(HedString(text, self.schema), allow_placeholders=False)
        return not any(i.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR for i in issues)


def score(rows: list[dict[str, str]], predictions: dict[str, str], scorer: Scorer, *,
          include_definitions: bool = False) -> Report:
    """Micro, per-dataset, macro and de-duplicated scores of *predictions* against the rows' gold ``hed``."""
    report = Report()
    seen: set[str] = set()
    for row in rows:
        gold_text = row.get("hed") or ""
        if not include_definitions and _DEFINITIONS.search(gold_text):
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
    help = ("Annotate every row of a CSV (columns id, description) and write id, prediction; with a hed "
            "column, score per dataset, macro over datasets, micro, and on de-duplicated rows.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("gold", help="CSV with columns id, description (and hed, dataset to score)")
        parser.add_argument("--out", required=True, help="where to write id, prediction")
        parser.add_argument("--schema", default=DEFAULT_SCHEMA_VERSION, help="HED schema version")
        parser.add_argument("--max-attempts", type=int, default=3)
        parser.add_argument("--limit", type=int, default=0, help="only the first N rows")
        parser.add_argument("--score-schema", default="8.4.0", help="schema the scores use (the referee's default)")
        parser.add_argument("--all", action="store_true", help="also score rows whose gold uses definitions")
        parser.add_argument("--no-score", action="store_true", help="only write the predictions")

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
        if opts["no_score"] or not rows or "hed" not in rows[0]:
            return
        report = score(rows, dict(predictions), Scorer(opts["score_schema"]), include_definitions=opts["all"])
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
