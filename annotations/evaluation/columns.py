"""The evaluation table's columns, declared once: the page's headers, cells and sorting, and the CSV download.

Each column says what it means (``help``, shown as the header's title and in the README's "Choosing a model").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.scoring import Interval
from annotations.evaluation.table import ModelRow, TagFigures


def share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}" if value in (0, 1) else f"{value:.1%}"


def figure(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def money(value: float | None) -> str:
    if value is None:
        return "—"
    return "$0" if value == 0 else f"${value:.4f}" if value >= 0.0001 else f"${value:.2e}"


def interval(found: Interval | None, digits: int = 2, *, as_share: bool = False) -> str:
    if found is None:
        return ""
    if as_share:
        return f"{found.low * 100:.0f}\u2013{found.high:.0%}"
    return f"{found.low:.{digits}f}\u2013{found.high:.{digits}f}"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    help: str
    sort: Callable[[ModelRow], Any]  # the value sorted on (None sorts last)
    cell: Callable[[ModelRow], str]  # the figure the page shows
    detail: Callable[[ModelRow], str] = lambda row: ""  # a second line: an interval, n
    numeric: bool = True


def configuration_detail(row: ModelRow) -> str:
    """Where the model runs, its decoding, prompts and schema, in a few words (the model's name is above it)."""
    c = row.configuration
    if c.is_offline:
        return f"no model, no prompt · HED {c.schema_version}"
    decoding = f"constrained ({c.constraint})" if c.constrained else "free decoding"
    parts = [c.provider or "unknown endpoint", decoding, f"prompts {c.prompt_version or 'unrecorded'}",
             f"HED {c.schema_version}"]
    return " · ".join(parts)


def _n(count: int) -> str:
    return f"n\u00a0{count}"  # kept on one line


def _tags_detail(tags: TagFigures) -> str:
    """Its interval (when shown) and n."""
    return " · ".join([*([interval(tags.interval)] if tags.interval else []), _n(tags.n)])


def _f1_detail(tags: TagFigures) -> str:
    """The interval and n, then precision and recall on a line of their own."""
    if tags.f1 is None:
        return _tags_detail(tags)
    return f"{_tags_detail(tags)}\nP {figure(tags.precision, 2)} · R {figure(tags.recall, 2)}"


def _review_detail(row: ModelRow) -> str:
    if not row.reviewed:
        return _n(0)
    span = interval(row.acceptance_interval, as_share=True)
    return f"{span + ' · ' if span else ''}{_n(row.reviewed)}\ncorrected {share(row.corrected)}\n" \
           f"rejected {share(row.rejected)}"


def _failure_kinds(row: ModelRow) -> str:
    return f"{row.timeouts} timed out\n{row.refusals} refused\n{row.invalid_replies} unreadable"


COLUMNS: tuple[Column, ...] = (
    Column("model", "Model", "The configuration: model, where it runs (provider or host), constrained decoding on or "
           "off, prompt version, HED schema.", lambda r: r.configuration.label.lower(), lambda r: r.configuration.model,
           configuration_detail, numeric=False),
    Column("runs", "Runs", "Finished runs of this configuration in the scope (cancelled runs left out).",
           lambda r: r.runs, lambda r: f"{r.runs:,}"),
    Column("first_valid", "Valid 1st", "Share of runs whose first attempt validated.", lambda r: r.first_valid,
           lambda r: share(r.first_valid)),
    Column("final_valid", "Valid", "Share of runs that ended with a valid annotation (failed runs count as not).",
           lambda r: r.final_valid, lambda r: share(r.final_valid)),
    Column("attempts", "Attempts", "Mean annotation attempts per run.", lambda r: r.mean_attempts,
           lambda r: figure(r.mean_attempts, 2)),
    Column("f1", "F1", "Tag F1 against the reviewed annotation (or the set's gold), definitions kept as the referee "
           "counts them; below, its 95% bootstrap interval (under 200 runs), n runs with gold, and the precision and "
           "recall behind it.", lambda r: r.tags.f1, lambda r: figure(r.tags.f1), lambda r: _f1_detail(r.tags)),
    Column("f1_expanded", "F1 expanded", "Tag F1 with each Def/ replaced by its definition's tags where the annotation "
           "holds it, the definition tags themselves not counted.", lambda r: r.tags_expanded.f1,
           lambda r: figure(r.tags_expanded.f1), lambda r: _tags_detail(r.tags_expanded)),
    Column("accepted", "Accepted", "Of the runs reviewers judged: accepted as is (interval below 200), corrected, "
           "rejected (or judged in need of a fix nobody made yet).", lambda r: r.accepted,
           lambda r: share(r.accepted), _review_detail),
    Column("rating", "Rating", "Mean of the runs' mean reviewer ratings (1 to 5); n rated runs.",
           lambda r: r.mean_rating, lambda r: figure(r.mean_rating, 2), lambda r: _n(r.rated)),
    Column("faithful", "Faithful", "Share of judged runs the evaluation agent found faithful (an LLM's judgement where "
           "a model runs, else the rule-based checker's); never part of F1.", lambda r: r.faithful,
           lambda r: share(r.faithful), lambda r: _n(r.judged)),
    Column("tokens", "Tokens", "Mean prompt and completion tokens per run.", lambda r: r.mean_tokens,
           lambda r: figure(r.mean_tokens, 0), lambda r: f"{r.total_tokens:,} in all"),
    Column("cost", "Cost", "Mean cost per run in US dollars (the provider's figure, or the configured prices); the "
           "total below.", lambda r: r.mean_cost, lambda r: money(r.mean_cost),
           lambda r: f"{money(r.total_cost)} in all"),
    Column("latency", "Latency", "Seconds from a run's start to its end: median (p50), and p95 below.",
           lambda r: r.latency_p50, lambda r: figure(r.latency_p50, 1) + " s",
           lambda r: f"p95 {figure(r.latency_p95, 1)} s"),
    Column("failures", "Failed", "Runs that failed (the model could not answer, or the offline annotator stood in for "
           "it); below, runs with a call that timed out, with a request the endpoint refused (HTTP 4xx), with a reply "
           "no HED could be read from (unreadable).", lambda r: r.failed, lambda r: f"{r.failed}", _failure_kinds),
)
BY_KEY = {c.key: c for c in COLUMNS}
DEFAULT_SORT = "f1"


def sorted_rows(rows: list[ModelRow], key: str, descending: bool) -> list[ModelRow]:
    """*rows* by the column *key* (an unknown one sorts by F1); rows without the figure last either way."""
    column = BY_KEY.get(key) or BY_KEY[DEFAULT_SORT]
    present = [r for r in rows if column.sort(r) is not None]
    missing = [r for r in rows if column.sort(r) is None]
    return sorted(present, key=column.sort, reverse=descending) + missing
