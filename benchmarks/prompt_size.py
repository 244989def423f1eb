"""Characters per annotation call over the dev set, beside one prompt carrying the whole vocabulary.

    python benchmarks/prompt_size.py [--dev ../shared/data/hed_gold_dev.csv] [--schema 8.4.0] [--guide FILE ...]

For every dev-set description it builds the exact messages the annotation agent sends
(``agents.annotation.llm_annotator.build_messages``):

* first attempt, free-text answer (``HEDIT_LLM_CONSTRAINT=none``);
* first attempt, structured answer (``json_schema`` / ``llama_cpp``);
* a later attempt, carrying a typical validator error with its hint and feedback summary.

It prints the median and p95 characters of each, and the size of a reference prompt in the
style of the original design: the same rules and examples, plus every tag of the schema (name,
parent, full description, value and unit rules) instead of a slice, plus a long rules text made
of the schema's prologue and epilogue, its unit-class and value-class tables and any ``--guide``
files (pass the HED annotation-semantics guide, about 62,000 characters, to reproduce the
original ~90,000+ character prompt exactly).  Target: median <= 12,000 characters.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.annotation.constrained import tag_forms  # noqa: E402
from agents.annotation.llm_annotator import _slice_lines, build_messages, system_prompt  # noqa: E402
from agents.schema import get_schema  # noqa: E402
from agents.state import AnnotationState, Iteration, ValidationIssue, WorkflowOptions  # noqa: E402
from agents.vocabulary import get_vocabulary  # noqa: E402

DEV = ROOT.parent / "shared" / "data" / "hed_gold_dev.csv"
TARGET_MEDIAN = 12_000


def _chars(messages: list[dict]) -> int:
    return sum(len(str(m["content"])) for m in messages)


def _p95(values: list[int]) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _later_attempt(description: str, options: WorkflowOptions) -> AnnotationState:
    state = AnnotationState(description=description, options=options)
    state.iterations.append(Iteration(number=1, annotation="Sensory-event, Visual-presentation, Blorp-tag", issues=[
        ValidationIssue(code="TAG_INVALID", tag="Blorp-tag",
                        message="'Blorp-tag' in Blorp-tag is not a valid base HED tag.",
                        hint="Use only tags from the vocabulary; check the spelling. Closest tags: Block, Blob.")]))
    state.pending_feedback = ("- TAG_INVALID in 'Blorp-tag': Use only tags from the vocabulary.\n"
                              "Summary: Replace Blorp-tag with a listed tag that names the object.")
    return state


def reference_prompt(schema_version: str, guides: list[Path]) -> tuple[str, dict[str, int]]:
    """The whole-vocabulary prompt, and the size of each of its parts."""
    vocabulary = get_vocabulary(schema_version)
    schema = get_schema(schema_version)
    infos = [t for t in vocabulary.all() if not vocabulary.is_deprecated(t.name)]
    forms = tag_forms(infos, vocabulary)
    full = {i.name: i for i in infos}
    # The full description, not the slice's first sentence: the reference sends everything.
    vocab_text = "\n".join(line.split(": ", 1)[0] + ": " + " ".join(full[f.name].description.split())
                           for f, line in zip(forms, _slice_lines(forms, full).splitlines(), strict=True))
    unit_text = "\n".join(f"{name}: {', '.join(uc.units)}" for name, uc in schema.unit_classes.items())
    value_text = "\n".join(f"{name}: {getattr(vc, 'description', '') or ''}"
                           for name, vc in schema.value_classes.items())
    rules = "\n\n".join([schema.prologue or "", schema.epilogue or "", unit_text, value_text,
                         *(g.read_text(encoding="utf-8") for g in guides)])
    system = system_prompt(schema_version, False, False)
    parts = {"rules and examples (system message)": len(system), "full vocabulary": len(vocab_text),
             "long rules text": len(rules)}
    return f"{system}\n\n{rules}\n\nTags you may use:\n{vocab_text}", parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--schema", default="8.4.0")
    parser.add_argument("--guide", type=Path, action="append", default=[],
                        help="a long rules document to add to the reference prompt")
    args = parser.parse_args()
    with args.dev.open(newline="", encoding="utf-8") as fh:
        descriptions = [row["description"] for row in csv.DictReader(fh)]
    options = WorkflowOptions(schema_version=args.schema)
    get_vocabulary(args.schema)  # load once, outside the timing
    started = time.perf_counter()
    sizes: dict[str, list[int]] = {"first attempt, free text": [], "first attempt, structured": [],
                                   "later attempt, with errors": []}
    for text in descriptions:
        state = AnnotationState(description=text, options=options)
        sizes["first attempt, free text"].append(_chars(build_messages(state, text)))
        sizes["first attempt, structured"].append(_chars(build_messages(state, text, structured=True)))
        sizes["later attempt, with errors"].append(_chars(build_messages(_later_attempt(text, options), text)))
    per_call_ms = 1000 * (time.perf_counter() - started) / (3 * len(descriptions))
    reference, parts = reference_prompt(args.schema, args.guide)

    print(f"dev set: {args.dev} ({len(descriptions)} descriptions), schema {args.schema}")
    print(f"{'annotation call':32} {'median':>8} {'p95':>8} {'max':>8}  (characters, system + user message)")
    for name, values in sizes.items():
        print(f"{name:32} {statistics.median(values):>8.0f} {_p95(values):>8} {max(values):>8}")
    print(f"building one prompt takes {per_call_ms:.1f} ms")
    print(f"reference prompt (whole vocabulary + long rules): {len(reference):,} characters")
    for name, size in parts.items():
        print(f"  {name}: {size:,}")
    if not args.guide:
        print("  (no --guide given: the long rules text is the schema's own prologue, epilogue and class tables)")
    median = statistics.median(sizes["first attempt, free text"] + sizes["later attempt, with errors"])
    print(f"median over all annotation calls: {median:.0f} characters, "
          f"{len(reference) / median:.0f}x smaller than the reference; target <= {TARGET_MEDIAN:,}: "
          f"{'met' if median <= TARGET_MEDIAN else 'MISSED'}")
    return 0 if median <= TARGET_MEDIAN else 1


if __name__ == "__main__":
    raise SystemExit(main())
