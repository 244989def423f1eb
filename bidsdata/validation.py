"""Validate a task's events files with its sidecar: one file per process at a time, each result remembered.

hedtools validates an events file row by row in pure Python (a study of 400 files of 400 rows takes minutes
on one core), and the files do not depend on each other: :func:`validate_events` hands them, in chunks, to
this process's one shared pool (:mod:`bidsdata.pool`: bounded, reused by every call, shut down at exit), so
any number of concurrent validations never run more than its processes. Each worker installs the fast Delay
split (:mod:`bidsdata.delays`), loads the schema once (:func:`bidsdata.schemas.load_schema`), keeps the last
few sidecars it built, and dies with its parent. Little work (one core, one file, a few small files) is
validated in this process.

Each file's issues depend only on the sidecar, the schema, the file's path and its text, so a caller may
pass a :class:`ResultCache` (a ``get``/``set`` mapping, such as Django's cache): a file validated before
with the same sidecar is not validated again, and a changed file or sidecar has a new key.

The issues are those the sequential ``validate_sidecar`` always gave (same :class:`SidecarIssue` fields,
each file's issues in hedtools' own order), the files in path order. Each file costs about a quarter less
than hedtools' own ``TabularInput.validate``, for the same issues: the sidecar must have been validated
alone first, without errors (``validate_sidecar`` does it), so each file skips hedtools' per-file copy of
that check, which could only repeat the sidecar's warnings (kept when warnings are asked for); and two of
hedtools' row loops skip work whose result they never use (:class:`RowValidator`).
"""

from __future__ import annotations

import agents  # noqa: F401 - first: hedtools imported without typeguard's 2 s (agents.quickstart), in workers too

# isort: split
import hashlib
import io
import json
import logging
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, fields
from typing import Any, Protocol

import hed
import pandas as pd
from hed.errors import ErrorContext, ErrorHandler
from hed.models import HedString, Sidecar, TabularInput
from hed.validator.onset_validator import OnsetValidator
from hed.validator.spreadsheet_validator import SpreadsheetValidator

from agents.schema import HedVersion
from bidsdata import delays, pool
from bidsdata.issues import SidecarIssue, cell, quoted, read_table, related, severity, text_or_none
from bidsdata.schemas import load_schema, version_key

logger = logging.getLogger(__name__)

FORMAT = f"1:hedtools {hed.__version__}:{','.join(f.name for f in fields(SidecarIssue))}"
"""Part of every key: results stored by another hedtools or another issue shape are never read back."""
MIN_PARALLEL_BYTES = {"fork": 64 * 1024, "forkserver": 512 * 1024, "spawn": 1024 * 1024}
"""Events text below which one process validates alone: a pool's start (about 0.1 s forked, 1-2 s for fresh
processes that import hedtools) would cost more than it saves (a file of 400 rows, 18 KiB, takes ~0.13 s)."""


class ResultCache(Protocol):
    """Where per-file results are kept between calls: ``get`` answers None for an unknown key.

    Django's cache has this shape; so does any small object with these two methods.
    """

    def get(self, key: str) -> Any: ...

    def set(self, key: str, value: Any) -> None: ...


@dataclass
class FileValidator:
    """What validating one events file needs: the schema, the sidecar (as a dict and as hedtools reads it)."""

    schema: Any
    sidecar: dict[str, Any]
    side: Sidecar
    include_warnings: bool

    @classmethod
    def build(cls, sidecar: dict[str, Any], hed_version: HedVersion | None, *, name: str,
              include_warnings: bool) -> FileValidator:
        delays.install()  # hedtools' own Delay split grows a frame row by row: quadratic in the delayed rows
        schema = load_schema(hed_version)
        return cls(schema=schema, sidecar=sidecar, side=Sidecar(io.StringIO(json.dumps(sidecar)), name=name),
                   include_warnings=include_warnings)


class RowValidator(SpreadsheetValidator):
    """hedtools' tabular validator with two of its row loops doing only the work whose result they use.

    ``_run_row_checks`` parsed every row of a timeline file into HED strings, then skipped each row with an
    onset (checked after the merge by onset); here a row with an onset is skipped before it is parsed. The
    ``_recheck_duplicates`` loop read two rows per row through ``DataFrame.iloc`` (a new Series each time);
    here it reads three plain lists. Each loop's checks, their order and their context are hedtools' own, so
    the issues are too (tests compare them with hedtools' validator). Used only by :func:`validate_file`.
    """

    def _run_row_checks(self, hed_df: pd.DataFrame, error_handler: ErrorHandler, row_offset: int,
                        onset_mask: pd.Series | None = None) -> list[dict]:
        issues: list[dict] = []
        skip = None if onset_mask is None else onset_mask.to_numpy()
        for row_number, cells in zip(hed_df.index, hed_df.itertuples(index=False, name=None), strict=True):
            if skip is not None and skip[row_number]:
                continue
            row_strings = [HedString(cell, self._schema) for cell in cells if cell and cell != "n/a"]
            if not row_strings:
                continue
            row_string = HedString.from_hed_strings(row_strings)
            if not row_string:
                continue
            error_handler.push_error_context(ErrorContext.ROW, row_number + row_offset)
            error_handler.push_error_context(ErrorContext.HED_STRING, row_string)
            row_issues = self._hed_validator.run_full_string_checks(row_string)
            row_issues += OnsetValidator.check_for_banned_tags(row_string)
            error_handler.add_context_and_filter(row_issues)
            error_handler.pop_error_context()
            error_handler.pop_error_context()
            issues += row_issues
        return issues

    def _recheck_duplicates(self, onset_filtered: pd.DataFrame, error_handler: ErrorHandler,
                            row_offset: int) -> list[dict]:
        issues: list[dict] = []
        hed, onsets = onset_filtered["HED"].tolist(), onset_filtered["onset"].tolist()
        original = onset_filtered["original_index"].tolist()
        for i in range(len(hed) - 1):
            if not hed[i] or not self._is_within_tolerance(onsets[i + 1], onsets[i]):
                continue
            error_handler.push_error_context(ErrorContext.ROW, original[i] + row_offset)
            row_string = HedString(hed[i], self._schema, self._hed_validator._def_validator)
            error_handler.push_error_context(ErrorContext.HED_STRING, row_string)
            new_issues = self._hed_validator.run_full_string_checks(row_string)
            error_handler.add_context_and_filter(new_issues)
            error_handler.pop_error_context()
            issues += new_issues
            error_handler.pop_error_context()
        return issues


def validate_file(validator: FileValidator, path: str, text: str) -> list[SidecarIssue]:
    """hedtools' issues for one events file (path, TSV text), each mapped to its row, column and level."""
    header, rows = read_table(text)
    sidecar = validator.sidecar
    tabular = TabularInput(io.StringIO(text), sidecar=validator.side, name=path)
    found: list[SidecarIssue] = []
    # What TabularInput.validate runs, with the lighter row loops. The sidecar alone had no errors, so
    # hedtools' per-file check of it could only add its warnings again: it runs when warnings are asked for.
    for issue in RowValidator(validator.schema).validate(tabular, sidecar=tabular.get_sidecar(), name="",
                                                         validate_sidecar=validator.include_warnings):
        if severity(issue) != "error" and not validator.include_warnings:
            continue
        row = issue.get(ErrorContext.ROW)
        row = int(row) if row is not None else None
        column = issue.get(ErrorContext.COLUMN) or issue.get(ErrorContext.SIDECAR_COLUMN_NAME)
        tag = issue.get("source_tag") or quoted(str(issue.get("message", "")))
        givers = () if column else related(sidecar, header, rows, row, tag)
        found.append(SidecarIssue(
            source=path, code=str(issue.get("code")), message=str(issue.get("message", "")).strip(),
            severity=severity(issue), column=column, level=cell(rows, header, row, column), row=row,
            hed=text_or_none(issue.get(ErrorContext.HED_STRING)), related=givers))
    return found


# --- keys ----------------------------------------------------------------------------------------


def sidecar_digest(sidecar: dict[str, Any], *, name: str = "events.json", include_warnings: bool = False) -> str:
    """What a file's issues depend on besides the schema and the file, as one digest.

    The sidecar's key order is kept (hedtools reads the columns in that order).
    """
    text = json.dumps([FORMAT, name, include_warnings, sidecar], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_key(digest: str, hed_version: HedVersion | None, path: str, text: str) -> str:
    """The cache key of one file's issues: (sidecar digest, schema version, file path, text digest)."""
    content = hashlib.sha256(text.encode("utf-8")).hexdigest()
    parts = json.dumps([digest, list(version_key(hed_version)), path, content], separators=(",", ":"))
    return "hedit:events-issues:" + hashlib.sha256(parts.encode("utf-8")).hexdigest()


# --- processes (the shared pool itself: :mod:`bidsdata.pool`) ---------------------------------------


def plan_workers(files: int, total_bytes: int, workers: int | None, method: str) -> int:
    """How many workers validate *files* files: *workers* when given, else the pool's size for enough work.

    The workers come from the one shared pool (:func:`bidsdata.pool.shared_pool`), so concurrent calls share
    its processes.
    """
    if workers is not None:
        return max(1, min(workers, files))
    cores = pool.pool_size()
    if cores < 2 or files < 2 or total_bytes < MIN_PARALLEL_BYTES.get(method, MIN_PARALLEL_BYTES["spawn"]):
        return 1
    return min(cores, files)


_validators: dict[str, FileValidator] = {}
"""A worker's validators by spec: pool workers outlive one call, so each keeps the last few sidecars built."""
KEEP_VALIDATORS = 4


def _validate_chunk(spec: tuple[str, HedVersion | None, str, bool], items: list[tuple[str, str]]
                    ) -> list[list[SidecarIssue]]:
    """In a shared-pool worker: *items*' issues, with the validator for *spec* built once per worker."""
    key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode("utf-8")).hexdigest()
    validator = _validators.pop(key, None)
    if validator is None:
        sidecar_text, hed_version, name, include_warnings = spec
        validator = FileValidator.build(json.loads(sidecar_text), hed_version, name=name,
                                        include_warnings=include_warnings)
    _validators[key] = validator  # the newest last; the oldest beyond KEEP_VALIDATORS dropped
    while len(_validators) > KEEP_VALIDATORS:
        _validators.pop(next(iter(_validators)))
    return [validate_file(validator, path, text) for path, text in items]


def _in_pool(count: int, items: list[tuple[str, str]], sidecar: dict[str, Any], hed_version: HedVersion | None,
             name: str, include_warnings: bool, method: str, done: dict[str, list[SidecarIssue]],
             store: Callable[[str, list[SidecarIssue]], None]) -> None:
    """Validate *items* in chunks for *count* workers of the shared pool, putting each file's issues in *done*
    (and *store*) as they come. Every caller shares the pool, so calls at once never start more processes."""
    executor, size = pool.shared_pool()
    spec = (json.dumps(sidecar), hed_version, name, include_warnings)
    step = max(1, len(items) // (min(count, size) * 4))
    chunks = [items[i:i + step] for i in range(0, len(items), step)]
    try:
        futures = [executor.submit(_validate_chunk, spec, chunk) for chunk in chunks]
        for chunk, future in zip(chunks, futures, strict=True):
            for (path, _), issues in zip(chunk, future.result(), strict=True):
                done[path] = issues
                store(path, issues)
    except BrokenProcessPool:
        pool.drop_pool(executor)
        raise


def validate_events(sidecar: dict[str, Any], events: Mapping[str, str], hed_version: HedVersion | None, *,
                    name: str = "events.json", include_warnings: bool = False, cache: ResultCache | None = None,
                    workers: int | None = None) -> list[SidecarIssue]:
    """hedtools' issues for each events file (path -> TSV text) validated with *sidecar*, files in path order.

    *sidecar* must validate alone without errors (see the module's notes). With *cache*, a file whose
    (sidecar, schema, path, text) was validated before is not validated again. *workers* overrides the
    number of processes (1: this process only); by default every available core when the work is enough (in
    a shared-pool worker, always that worker alone).
    """
    digest = sidecar_digest(sidecar, name=name, include_warnings=include_warnings)
    keys: dict[str, str] = {}
    done: dict[str, list[SidecarIssue]] = {}
    if cache is not None:
        for path, text in events.items():
            keys[path] = file_key(digest, hed_version, path, text)
            found = cache.get(keys[path])
            if found is not None:
                done[path] = list(found)
    todo = sorted((path, text) for path, text in events.items() if path not in done)

    def store(path: str, issues: list[SidecarIssue]) -> None:
        if cache is not None:
            cache.set(keys[path], issues)

    if todo:
        method = pool.start_method()
        total_bytes = sum(len(text) for _, text in todo)
        count = 1 if pool.in_pool_worker() else plan_workers(len(todo), total_bytes, workers, method)
        logger.info("validating %d events file(s) (%d already validated) in %d process(es)%s",
                    len(todo), len(done), count, f" ({method})" if count > 1 else "")
        if count > 1:
            delays.install()  # forked children inherit it; fresh ones install it in their initializer
            load_schema(hed_version)  # a bad version fails here, once, not in every worker
            try:
                _in_pool(count, todo, sidecar, hed_version, name, include_warnings, method, done, store)
            except (BrokenProcessPool, OSError) as exc:  # a worker killed (memory) or no processes to be had
                logger.warning("validating in %d processes failed (%s); validating the rest here", count, exc)
        left = [(path, text) for path, text in todo if path not in done]
        if left:
            validator = FileValidator.build(sidecar, hed_version, name=name, include_warnings=include_warnings)
            for path, text in left:
                done[path] = validate_file(validator, path, text)
                store(path, done[path])
    return [issue for path in sorted(done) for issue in done[path]]
