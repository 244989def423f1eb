"""What the memory of accepted annotations is worth: F1 with and without it, and its prompt cost.

    python benchmarks/memory.py [--dev ../shared/data/hed_gold_dev.csv] [--schema 8.4.0] [--out PRED.csv] [--portal]

Walks the dev set in dataset order.  Each row is annotated (offline annotator, the full workflow)
with the memory built so far, then a simulated reviewer corrects it to its gold annotation, which
enters the memory as an accepted example.  Memory is chosen exactly as the portal would choose it:
``agents.memory.most_similar`` over every earlier accepted example.

Rows are grouped by what memory held when they were annotated:

* identical: an accepted example with the same normalised description (the offline annotator
  reuses it outright);
* similar only: examples at least ``MIN_SIMILARITY`` alike, none identical (offline gains
  nothing; only a language model's prompt does);
* none: nothing similar.

For every group it reports the micro F1 (the scoring of ``../shared/eval/score_hed.py``, imported
from there: short base tags, values dropped, rows whose gold uses definitions left out) of the
annotations made with memory and of the same rows annotated without it, and the share valid.  It also
builds, without calling a model, the LLM annotator's first-attempt prompt with the examples memory
offers, and reports its median size beside the prompt without examples (target median <= 12,000).

With ``--portal`` the same walk goes through the portal itself, on a temporary SQLite database:
each row is a stored session run by ``annotations.runs.execution.execute_session`` (which picks
its examples from the reviewed sessions, ``annotations.runs.memory``), and the simulated reviewer
then corrects it to the gold annotation with ``annotations.review.services.correct_annotation`` (or
accepts it when it already is the gold).  A gold annotation that does not validate under the schema
cannot be saved as a correction (only as a draft), so it never enters the portal's memory: the
figures count those rows.  "Without" is the same workflow with no examples.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import importlib.util
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.annotation.llm_annotator import build_messages  # noqa: E402
from agents.memory import MIN_SIMILARITY, exact_match, most_similar  # noqa: E402
from agents.state import AnnotationState, MemoryExample, WorkflowOptions  # noqa: E402
from agents.workflow import InvalidInput, run_workflow  # noqa: E402

DEV = ROOT.parent / "shared" / "data" / "hed_gold_dev.csv"
SCORER = ROOT.parent / "shared" / "eval" / "score_hed.py"
TARGET_MEDIAN = 12_000
GROUPS = ("identical", "similar only", "none", "all")


def load_scorer(path: Path) -> ModuleType:
    """The shared scorer as a module, so every figure here is scored exactly as it scores."""
    spec = importlib.util.spec_from_file_location("score_hed", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the scorer at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    valid: int = 0
    rows: int = 0

    def add(self, gold: set[str], pred: set[str], ok: bool) -> None:
        self.tp += len(gold & pred)
        self.fp += len(pred - gold)
        self.fn += len(gold - pred)
        self.valid += ok
        self.rows += 1

    @property
    def f1(self) -> float:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Group:
    with_memory: Tally = field(default_factory=Tally)
    without: Tally = field(default_factory=Tally)
    annotated: int = 0  # rows in the group, scored or not


async def annotate(description: str, options: WorkflowOptions, examples: list[MemoryExample]) -> str:
    try:
        state = await run_workflow(description, options, examples=examples)
    except InvalidInput:
        return ""
    return state.annotation


def prompt_chars(description: str, options: WorkflowOptions, examples: list[MemoryExample]) -> int:
    state = AnnotationState(description=description, options=options, examples=examples)
    return sum(len(str(m["content"])) for m in build_messages(state, description))


async def run(dev: Path, schema: str, out: Path | None) -> int:
    scorer = load_scorer(SCORER)
    hed_schema = scorer.load_schema_version(schema)
    validator = scorer.HedValidator(hed_schema)
    with dev.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    options = WorkflowOptions(schema_version=schema)
    memory: list[MemoryExample] = []
    groups = {name: Group() for name in GROUPS}
    sizes: dict[str, list[int]] = {"without examples": [], "with memory's examples": []}
    examples_in_prompt: list[int] = []
    predictions: list[tuple[str, str]] = []
    for row in rows:
        description = row["description"]
        # Newest first, as the portal would list them: among equals the latest correction wins.
        candidates = most_similar(description, memory[::-1], k=3)
        kind = ("identical" if exact_match(description, memory) else "similar only" if candidates else "none")
        with_memory = await annotate(description, options, candidates)
        without = await annotate(description, options, [])
        predictions.append((row["id"], with_memory))
        sizes["without examples"].append(prompt_chars(description, options, []))
        sizes["with memory's examples"].append(prompt_chars(description, options, candidates))
        examples_in_prompt.append(len(candidates))
        _score_row(groups, kind, row, with_memory, without, scorer, hed_schema, validator)
        # The simulated reviewer corrects the annotation to the gold one: it enters memory.
        memory.append(MemoryExample(description=description, annotation=row["hed"], source_id=row["id"]))

    if out is not None:
        with out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", "prediction"])
            writer.writerows(predictions)

    print(f"dev set: {dev} ({len(rows)} rows, in dataset order), schema {schema}; "
          f"similar means >= {MIN_SIMILARITY} (agents.memory.MIN_SIMILARITY)")
    print("offline annotator (reuses only an identical normalised description), micro F1 on scored rows:")
    _print_f1_table(groups)
    print("LLM annotator, first-attempt prompt (system + user message, characters; no model called):")
    return _print_prompt_sizes(sizes, examples_in_prompt)


def _score_row(groups: dict, kind: str, row: dict, with_memory: str, without: str, scorer: ModuleType,
               hed_schema: Any, validator: Any) -> None:
    """Count a row in its group and in "all", and score both predictions against the gold (not Def/ rows)."""
    for name in (kind, "all"):
        groups[name].annotated += 1
    if scorer.DEF_RE.search(row["hed"]):
        return
    gold = scorer.base_tags(row["hed"], hed_schema)
    for text, pick in ((with_memory, "with_memory"), (without, "without")):
        try:
            tags = scorer.base_tags(text, hed_schema)
        except Exception:  # unparsable: no credit, as the scorer does
            tags = set()
        ok = scorer.is_valid(text, hed_schema, validator)
        for name in (kind, "all"):
            getattr(groups[name], pick).add(gold, tags, ok)


def _print_f1_table(groups: dict) -> None:
    print(f"{'memory held':14} {'rows':>5} {'scored':>6} {'F1 with':>8} {'F1 without':>10} "
          f"{'valid with':>10} {'valid without':>13}")
    for name, g in groups.items():
        w, wo = g.with_memory, g.without
        if not w.rows:
            print(f"{name:14} {g.annotated:>5} {0:>6} {'-':>8} {'-':>10} {'-':>10} {'-':>13}")
            continue
        print(f"{name:14} {g.annotated:>5} {w.rows:>6} {w.f1:>8.3f} {wo.f1:>10.3f} "
              f"{w.valid / w.rows:>10.3f} {wo.valid / wo.rows:>13.3f}")


def _print_prompt_sizes(sizes: dict[str, list[int]], offered: list[int]) -> int:
    """Prompt sizes and how many rows were offered examples; exit status 1 when the median misses the target."""
    for name, values in sizes.items():
        print(f"  {name:24} median {statistics.median(values):>7.0f}  max {max(values):>7}")
    with_examples = [n for n in offered if n]
    print(f"  rows offered examples: {len(with_examples)}/{len(offered)}, "
          f"{statistics.mean(with_examples) if with_examples else 0:.1f} examples each on average")
    median = statistics.median(sizes["with memory's examples"])
    print(f"median prompt with examples {median:.0f} characters; target <= {TARGET_MEDIAN:,}: "
          f"{'met' if median <= TARGET_MEDIAN else 'MISSED'}")
    return 0 if median <= TARGET_MEDIAN else 1


def _portal_setup(db: Path) -> None:
    """Django on a fresh SQLite database at *db*, migrated (no other process shares it)."""
    import os

    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hedit_site.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def run_portal(dev: Path, schema: str, out: Path | None) -> int:
    """The walk of :func:`run` through stored sessions, the portal's memory and real reviews."""
    import tempfile

    tmp = tempfile.TemporaryDirectory(prefix="hedit-memory-")
    _portal_setup(Path(tmp.name) / "portal.sqlite3")
    from django.contrib.auth.models import Group as UserGroup
    from django.contrib.auth.models import User

    from annotations import access
    from annotations.review import services as reviews
    from annotations.runs.execution import execute_session
    from annotations.runs.memory import examples_for
    from annotations.runs.services import build_options, create_session

    scorer = load_scorer(SCORER)
    hed_schema = scorer.load_schema_version(schema)
    validator = scorer.HedValidator(hed_schema)
    with dev.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    reviewer = User.objects.create_user("simulated-reviewer")
    reviewer.groups.add(UserGroup.objects.get_or_create(name=access.REVIEWER_GROUP)[0])
    options = WorkflowOptions(schema_version=schema)
    groups = {name: Group() for name in GROUPS}
    sizes: dict[str, list[int]] = {"without examples": [], "with memory's examples": []}
    offered: list[int] = []
    used_rows = 0
    predictions: list[tuple[str, str]] = []
    saved = {"corrected": 0, "accepted": 0, "refused (gold does not validate)": 0, "no annotation": 0}
    for row in rows:
        description = row["description"].strip()
        try:
            session = create_session(user=None, description=description, options=build_options(options.to_dict()))
        except Exception:  # an empty description: the portal refuses it, as the CLI would
            continue
        # What execute_session will pick (the same function, the same database): for grouping and prompt size.
        examples = examples_for(session)
        kind = "identical" if exact_match(description, examples) else "similar only" if examples else "none"
        done = asyncio.run(execute_session(session.pk, use_configured_llm=False))
        with_memory = done.final_annotation if done is not None else ""
        used_rows += bool(done is not None and done.examples_used)
        without = asyncio.run(annotate(description, options, []))
        predictions.append((row["id"], with_memory))
        sizes["without examples"].append(prompt_chars(description, options, []))
        sizes["with memory's examples"].append(prompt_chars(description, options, examples))
        offered.append(len(examples))
        _score_row(groups, kind, row, with_memory, without, scorer, hed_schema, validator)
        # The simulated reviewer: the gold annotation becomes the final one, if the portal will take it.
        if done is None or done.status not in access.REVIEWABLE_STATUSES:
            saved["no annotation"] += 1
            continue
        gold_text = " ".join(row["hed"].split())
        if gold_text == done.final_annotation and done.is_valid:
            reviews.submit_review(done, reviewer, rating=5, verdict="accept")
            saved["accepted"] += 1
            continue
        try:
            reviews.correct_annotation(done, reviewer, gold_text)
            saved["corrected"] += 1
        except reviews.ReviewError:
            saved["refused (gold does not validate)"] += 1

    if out is not None:
        with out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", "prediction"])
            writer.writerows(predictions)
    print(f"PORTAL PATH: dev set {dev} ({len(rows)} rows, in dataset order), schema {schema}, temporary SQLite; "
          f"each row a stored session run by execute_session, then corrected to its gold by a reviewer")
    print("simulated reviews: " + ", ".join(f"{k} {v}" for k, v in saved.items()))
    print(f"runs that used memory (examples_used not empty): {used_rows}")
    print("offline annotator, micro F1 on scored rows (grouped by what the portal's memory held):")
    _print_f1_table(groups)
    print("LLM annotator, first-attempt prompt with the examples the portal picked (characters; no model called):")
    tmp.cleanup()
    return _print_prompt_sizes(sizes, offered)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--schema", default="8.4.0")
    parser.add_argument("--out", type=Path, help="write id, prediction (annotated with memory) here")
    parser.add_argument("--portal", action="store_true",
                        help="go through stored sessions, execute_session and real reviews on a temporary database")
    args = parser.parse_args()
    if args.portal:
        return run_portal(args.dev, args.schema, args.out)
    return asyncio.run(run(args.dev, args.schema, args.out))


if __name__ == "__main__":
    raise SystemExit(main())
