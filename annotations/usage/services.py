"""HED search, design matrices and tag summaries of a project's tasks, as the pages and the API ask for them.

Every question is asked of a task's :class:`bidsdata.usage.TaskEvents` for one sidecar revision
(:mod:`.revisions`), in the search process that owns the revision (:mod:`bidsdata.usage.workers`: bounded per
server, the assembled HED kept there). Each counts once against the asker's ``HEDIT_QUERY_RATE``
(:mod:`annotations.limits`); the counts of a query are kept in the cache by revision, so the pages of its rows
and its download read them back. Rows come a page at a time, a download one events file at a time.
"""

from __future__ import annotations

import io
import json
import logging
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from django.conf import settings
from django.core.cache import cache

from annotations.errors import FieldError
from annotations.limits import check_query_length, check_query_rate
from annotations.models import DatasetProject, DatasetTask
from annotations.usage.revisions import Revision, revision_of, task_events
from bidsdata.cells import safe_row
from bidsdata.usage import Options, TaskEvents, check_query
from bidsdata.usage.design import DesignError, check_design, factor_table, matrix_name
from bidsdata.usage.search import Row, TaskCounts
from bidsdata.usage.sources import digest
from bidsdata.usage.workers import configure_search

logger = logging.getLogger(__name__)

PAGE_ROWS = 50
"""Matching rows per page (pages and API)."""
MAX_QUERIES = 20
"""Queries asked at once."""
COUNTS_SECONDS = 6 * 3600
"""How long a query's counts are kept (by revision: a new sidecar is a new revision, never a stale answer)."""


def configured() -> None:
    """The search processes as the settings say (``HEDIT_SEARCH_PROCESSES``, ``HEDIT_SEARCH_STORE_EVENTS``)."""
    configure_search(getattr(settings, "HEDIT_SEARCH_PROCESSES", 0),
                     getattr(settings, "HEDIT_SEARCH_STORE_EVENTS", None))


def clean_queries(raw: Sequence[str], field: str = "q") -> list[str]:
    """The queries asked (blank ones dropped), each within the length limit and parsed by hedtools; a malformed
    one is a 400 on *field* with hedtools' message and the character it fails at."""
    queries = [q.strip() for q in raw if q and q.strip()]
    if not queries:
        raise FieldError(field, "give a HED query, e.g. Sensory-event && Visual-presentation")
    if len(queries) > MAX_QUERIES:
        raise FieldError(field, f"at most {MAX_QUERIES} queries at once, not {len(queries)}")
    for index, text in enumerate(queries):
        check_query_length(text, field)
        checked = check_query(text, index=index)
        if checked.error is not None:
            raise FieldError(field, str(checked.error))
    return queries


def options_of(*, context: bool = True, expand_defs: bool = False, remove_types: Any = "") -> Options:
    """The three toggles as hedtools' assembly options; an unknown type is a 400 on ``remove_types``."""
    options = Options.of(include_context=context, replace_defs=expand_defs, remove_types=remove_types)
    for tag in options.remove_types:
        try:
            check_design(tag, "one-hot")
        except DesignError as exc:
            raise FieldError("remove_types", str(exc)) from None
    return options


@dataclass
class TaskSearch:
    """One task's answer to a set of queries with one revision."""

    task: DatasetTask
    revision: Revision
    events: TaskEvents
    queries: list[str]
    options: Options
    counts: TaskCounts

    def page(self, number: int, size: int = PAGE_ROWS) -> list[Row]:
        """The matching rows of page *number* (1-based), read from the files that hold them."""
        offset = (max(1, number) - 1) * size
        if offset >= self.counts.any_matches:
            return []
        return self.events.page(self.queries, self.options, self.counts, offset=offset, limit=size)

    @property
    def pages(self) -> int:
        return max(1, -(-self.counts.any_matches // PAGE_ROWS))

    def tsv(self) -> Iterator[str]:
        """Every matching row as TSV lines (file, row, onset, a 0/1 column per query, hed), one file at a time."""
        yield "\t".join(safe_row(["file", "row", "onset", *self.queries, "hed"])) + "\n"
        for row in self.events.rows(self.queries, self.options, with_hed=True, counts=self.counts):
            onset = "n/a" if row.onset is None else f"{row.onset:.10g}"
            yield "\t".join(safe_row([row.path, row.row, onset, *row.answers, row.hed])) + "\n"


def search_task(user: Any, project: DatasetProject, task: DatasetTask, queries: list[str], options: Options, *,
                revision: str | None = None, scope: str = "page", count: bool = True) -> TaskSearch:
    """*queries* over *task*'s events with the *revision* asked (the newest stored by default), counted once
    against *user*'s query rate when *count*. The counts come from the cache when this revision was asked
    the same before."""
    if count:
        check_query_rate(user, scope)
    configured()
    chosen = revision_of(project, task, revision)
    events = task_events(project, task, chosen)
    key = "hedit:usage-counts:" + digest(events.revision, queries, options.key())
    kept = cache.get(key)
    if kept is not None:
        counts = TaskCounts.from_dict(kept)
    else:
        counts = events.counts(queries, options)
        cache.set(key, counts.to_dict(), timeout=COUNTS_SECONDS)
    return TaskSearch(task=task, revision=chosen, events=events, queries=queries, options=options, counts=counts)


def task_summary(user: Any, project: DatasetProject, task: DatasetTask, *, scope: str = "page",
                 count: bool = True) -> dict[str, Any]:
    """The task's tag counts, grouped, and its condition factors, for the newest stored sidecar (cached)."""
    if count:
        check_query_rate(user, scope)
    configured()
    chosen = revision_of(project, task)
    events = task_events(project, task, chosen)
    key = "hedit:usage-summary:" + events.revision
    kept = cache.get(key)
    if kept is None:
        design = events.design_summary(_slim(events.designs()), "Condition-variable")
        kept = {**events.summary(), "design": design, "factors": factor_table(design), "revision": chosen.name}
        cache.set(key, kept, timeout=COUNTS_SECONDS)
    return kept


def _slim(files: Iterator[Any]) -> Iterator[Any]:
    """Design files without their rows (a summary needs their figures only)."""
    for found in files:
        found.rows = []
        yield found


def design_factors(user: Any, project: DatasetProject, task: DatasetTask, type_tag: str, *,
                   scope: str = "page") -> dict[str, Any]:
    """The task's factor table (levels x events and files) for *type_tag*, cached by revision."""
    check_query_rate(user, scope)
    configured()
    type_tag = check_design(type_tag, "one-hot")
    chosen = revision_of(project, task)
    events = task_events(project, task, chosen)
    key = "hedit:usage-design:" + digest(events.revision, type_tag)
    kept = cache.get(key)
    if kept is None:
        summary = events.design_summary(_slim(events.designs(type_tag)), type_tag)
        kept = {"type": type_tag, "summary": summary, "factors": factor_table(summary), "revision": chosen.name}
        cache.set(key, kept, timeout=COUNTS_SECONDS)
    return kept


def write_design_zip(user: Any, project: DatasetProject, task: DatasetTask, type_tag: str, encoding: str,
                     out: IO[bytes], *, scope: str = "page") -> None:
    """The task's design matrices (one TSV per events file) and the type's summary, as a zip into *out*."""
    check_query_rate(user, scope)
    configured()
    type_tag = check_design(type_tag, encoding)
    events = task_events(project, task, revision_of(project, task))
    written: list[Any] = []
    names: set[str] = set()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for found in events.designs(type_tag, encoding):
            if not found.refused:
                name = matrix_name(found.path)
                if name in names:
                    name = found.path.replace("/", "_").removesuffix("_events.tsv") + "_design.tsv"
                names.add(name)
                target.writestr(name, found.tsv())
            found.rows = []
            written.append(found)
        summary = events.design_summary(written, type_tag)
        target.writestr(f"task-{task.name}_{type_tag.casefold()}_summary.json", json.dumps(summary, indent=2) + "\n")
        table = io.StringIO()
        table.write("\t".join(["factor", "level", "events", "files", "direct_references", "description"]) + "\n")
        for row in factor_table(summary):
            cells = [row["factor"], row["level"] or "", row["events"], row["files"],
                     "" if row["direct_references"] is None else row["direct_references"], row["description"]]
            table.write("\t".join(safe_row(cells)) + "\n")
        target.writestr(f"task-{task.name}_{type_tag.casefold()}_factors.tsv", table.getvalue())


__all__ = ["MAX_QUERIES", "PAGE_ROWS", "TaskSearch", "clean_queries", "configured", "design_factors",
           "options_of", "search_task", "task_summary", "write_design_zip"]
