"""Events files validated in parallel processes, and each file's result kept for the next call (issue 20)."""

from __future__ import annotations

import io
import json
import logging
import multiprocessing
import os
import re
from typing import Any

import pytest
from hed.errors import ErrorContext
from hed.models import Sidecar, TabularInput, df_util

from bidsdata import delays, pool, validation
from bidsdata.issues import SIDECAR, SidecarIssue, cell, quoted, read_table, related, severity, text_or_none
from bidsdata.schemas import load_schema
from bidsdata.sidecar import validate_sidecar

VERSION = "8.4.0"
NAME = "task-a_events.json"
SIDECAR_HED = {
    "trial_type": {"HED": {"show": "Sensory-event, Visual-presentation, Experimental-stimulus",
                           "press": "Agent-action, Participant-response, (Press, Mouse-button)"}},
    # "disc" repeats the stimulus's Visual-presentation: an error only in rows where both meet.
    "shape": {"HED": {"disc": "Visual-presentation, Circle", "square": "Square"}},
    "response_time": {"HED": "(Delay/# s, (Agent-action, Participant-response, Press))"},
}


def _run(seed: int, *, shape: str, bad_rt: bool = False, unknown: bool = False) -> str:
    """30 rows: a stimulus and a press at one onset, n/a cells, a Delay on every press."""
    lines = ["onset\tduration\ttrial_type\tshape\tresponse_time"]
    for i in range(15):
        onset = f"{seed + i * 2.0:.1f}"
        lines.append(f"{onset}\t0.5\tshow\t{shape if i % 3 else 'square'}\tn/a")
        rt = "fast" if bad_rt and i == 7 else f"0.{3 + (seed + i) % 6}"
        lines.append(f"{onset}\tn/a\t{'hold' if unknown and i == 4 else 'press'}\tn/a\t{rt}")
    return "\n".join(lines) + "\n"


def _untimed_last_row() -> str:
    """No Delay; the last row has no onset, so hedtools checks it alone (its row loop), and it repeats a tag."""
    lines = ["onset\tduration\ttrial_type\tshape\tresponse_time"]
    for i in range(10):
        lines += [f"{i * 2 + 1}.0\t0.5\tshow\tsquare\tn/a", f"{i * 2 + 1}.0\tn/a\tpress\tn/a\tn/a"]
    return "\n".join([*lines, "n/a\t0.5\tshow\tdisc\tn/a"]) + "\n"


def _events() -> dict[str, str]:
    """Seven runs: three with the repeated tag, one with a bad Delay value, one with an unknown level."""
    return {
        "sub-07/eeg/sub-07_task-a_events.tsv": _untimed_last_row(),
        "sub-02/eeg/sub-02_task-a_events.tsv": _run(2, shape="disc"),
        "sub-01/eeg/sub-01_task-a_events.tsv": _run(1, shape="square"),
        "sub-03/eeg/sub-03_task-a_events.tsv": _run(3, shape="square", bad_rt=True),
        "sub-04/eeg/sub-04_task-a_events.tsv": _run(4, shape="disc"),
        "sub-05/eeg/sub-05_task-a_events.tsv": _run(5, shape="square", unknown=True),
        "sub-06/eeg/sub-06_task-a_events.tsv": _run(6, shape="square"),
    }


def _legacy(sidecar: dict[str, Any], events: dict[str, str], include_warnings: bool) -> list[SidecarIssue]:
    """The events part of validate_sidecar as it was before the pool: one Sidecar, hedtools' own per-file
    check of it included, the files one after the other."""
    delays.install()
    schema = load_schema(VERSION)
    side = Sidecar(io.StringIO(json.dumps(sidecar)), name=NAME)
    assert not [i for i in side.validate(schema, name="") if severity(i) == "error"]
    found = []
    for path, text in events.items():
        header, rows = read_table(text)
        for issue in TabularInput(io.StringIO(text), sidecar=side, name=path).validate(schema, name=""):
            if severity(issue) != "error" and not include_warnings:
                continue
            row = issue.get(ErrorContext.ROW)
            row = int(row) if row is not None else None
            column = issue.get(ErrorContext.COLUMN) or issue.get(ErrorContext.SIDECAR_COLUMN_NAME)
            tag = issue.get("source_tag") or quoted(str(issue.get("message", "")))
            found.append(SidecarIssue(
                source=path, code=str(issue.get("code")), message=str(issue.get("message", "")).strip(),
                severity=severity(issue), column=column, level=cell(rows, header, row, column), row=row,
                hed=text_or_none(issue.get(ErrorContext.HED_STRING)),
                related=() if column else related(sidecar, header, rows, row, tag)))
    return found


class Spy:
    """Counts the files validated in this process and the pools asked for (their files go to the workers): each
    validation says in how many processes it validates (more than one: in the shared pool's workers)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
        self.files: list[str] = []
        self.caplog = caplog
        real_file = validation.validate_file
        caplog.set_level(logging.INFO, logger=validation.__name__)

        def validate_file(validator: Any, path: str, text: str) -> list[SidecarIssue]:
            self.files.append(path)
            return real_file(validator, path, text)

        monkeypatch.setattr(validation, "validate_file", validate_file)

    @property
    def pools(self) -> list[int]:
        """The number of processes of each validation handed to the pool, in order."""
        counts = [re.search(r"^validating .* in (\d+) process\(es\)", r.getMessage())
                  for r in self.caplog.records if r.name == validation.__name__]
        return [int(c.group(1)) for c in counts if c is not None and int(c.group(1)) > 1]


class RecordingCache:
    """A dict with the get/set of Django's cache, recording every key asked for and stored."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.gets: list[str] = []
        self.sets: list[str] = []

    def get(self, key: str) -> Any:
        self.gets.append(key)
        return self.data.get(key)

    def set(self, key: str, value: Any) -> None:
        self.sets.append(key)
        self.data[key] = value


@pytest.mark.parametrize("method", [m for m in ("fork", "forkserver") if m in multiprocessing.get_all_start_methods()])
@pytest.mark.parametrize("include_warnings", [False, True])
def test_processes_find_what_one_process_finds(monkeypatch, caplog, method, include_warnings):
    events = _events()
    spy = Spy(monkeypatch, caplog)
    monkeypatch.setattr(pool, "start_method", lambda: method)
    alone = validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, include_warnings=include_warnings, workers=1)
    assert sorted(spy.files) == sorted(events) and spy.pools == []
    spy.files.clear()
    pooled = validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, include_warnings=include_warnings, workers=2)
    assert spy.pools == [2] and spy.files == [], "every file validated by the two workers"
    assert pooled == alone
    # The same issues as before the pool, the files in path order, each file's issues in hedtools' order.
    assert alone == _legacy(SIDECAR_HED, dict(sorted(events.items())), include_warnings)
    errors = [i for i in alone if i.severity == "error"]
    assert {i.source.split("/")[0] for i in errors} == {"sub-02", "sub-03", "sub-04", "sub-07"}
    assert [i.row for i in errors if i.source.startswith("sub-07")] == [22], "the row without onset, checked alone"
    merged = [i for i in errors if i.hed and "Sensory-event" in i.hed and "Agent-action" in i.hed]
    assert merged and all(merged.count(i) == 2 for i in merged), "rows merged at one onset: checked, then rechecked"
    assert {i.code for i in errors} >= {"TAG_EXPRESSION_REPEATED", "VALUE_INVALID"}
    assert [i.source for i in alone] == sorted(i.source for i in alone)
    if include_warnings:
        assert any(i.code == "SIDECAR_KEY_MISSING" and i.source.startswith("sub-05") for i in alone)


def test_a_second_call_validates_only_what_changed(monkeypatch, caplog):
    events = _events()
    cache, spy = RecordingCache(), Spy(monkeypatch, caplog)
    first = validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, cache=cache, workers=1)
    assert len(spy.files) == len(events) and len(set(cache.sets)) == len(events)

    spy.files.clear()
    cache.sets.clear()
    assert validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, cache=cache, workers=1) == first
    assert spy.files == [] and cache.sets == []
    assert validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, cache=cache, workers=2) == first
    assert spy.pools == [], "nothing left to validate: no pool started"

    changed = dict(events)
    changed["sub-01/eeg/sub-01_task-a_events.tsv"] = _run(1, shape="disc")  # now with the repeated tag
    again = validate_sidecar(SIDECAR_HED, changed, VERSION, name=NAME, cache=cache)
    assert spy.files == ["sub-01/eeg/sub-01_task-a_events.tsv"] and spy.pools == []
    assert again == validate_sidecar(SIDECAR_HED, changed, VERSION, name=NAME, workers=1)
    assert any(i.source.startswith("sub-01/") for i in again) and not any(i.source.startswith("sub-01/") for i in first)


def test_another_sidecar_or_schema_validates_every_file_again(monkeypatch, caplog):
    events = _events()
    cache, spy = RecordingCache(), Spy(monkeypatch, caplog)
    validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, cache=cache, workers=1)
    fixed = json.loads(json.dumps(SIDECAR_HED))
    fixed["shape"]["HED"]["disc"] = "Circle"
    spy.files.clear()
    issues = validate_sidecar(fixed, events, VERSION, name=NAME, cache=cache, workers=1)
    assert sorted(spy.files) == sorted(events)
    assert not any(i.code == "TAG_EXPRESSION_REPEATED" for i in issues)
    spy.files.clear()
    validate_sidecar(fixed, events, "8.3.0", name=NAME, cache=cache, workers=1)
    assert sorted(spy.files) == sorted(events)
    spy.files.clear()
    validate_sidecar(fixed, events, VERSION, name=NAME, cache=cache, workers=1, include_warnings=True)
    assert sorted(spy.files) == sorted(events), "warnings asked for: another result"


def test_a_sidecar_with_errors_validates_no_events_file(monkeypatch, caplog):
    broken = json.loads(json.dumps(SIDECAR_HED))
    broken["shape"]["HED"]["disc"] = "Circle, Blorp"
    cache, spy = RecordingCache(), Spy(monkeypatch, caplog)
    issues = validate_sidecar(broken, _events(), VERSION, name=NAME, cache=cache, workers=2)
    assert issues and {i.source for i in issues} == {SIDECAR}
    assert spy.files == [] and spy.pools == [] and cache.gets == [] and cache.sets == []


def test_the_number_of_processes(monkeypatch):
    assert pool.available_cores() == len(os.sched_getaffinity(0)), "the cores this process may use"
    monkeypatch.setattr(pool, "available_cores", lambda: 2)
    big = validation.MIN_PARALLEL_BYTES["fork"]
    assert validation.plan_workers(400, 400 * big, None, "fork") == 2
    assert validation.plan_workers(1, 400 * big, None, "fork") == 1, "one file: nothing to share"
    assert validation.plan_workers(3, big - 1, None, "fork") == 1, "little work: a pool costs more"
    assert validation.plan_workers(3, big, None, "forkserver") == 1, "fresh processes cost more to start"
    assert validation.plan_workers(3, 10, 8, "fork") == 3, "as asked, never more than the files"
    monkeypatch.setattr(pool, "available_cores", lambda: 1)
    assert validation.plan_workers(400, 400 * big, None, "fork") == 1


def _probe(sidecar_text: str) -> tuple[bool, str]:
    """In a shared-pool worker: whether its start installed the fast Delay split (before any validator is built
    there), and the schema of the validator it builds for the sidecar."""
    installed = df_util.split_delay_tags is delays.split_delay_tags
    validator = validation.FileValidator.build(json.loads(sidecar_text), VERSION, name=NAME, include_warnings=False)
    return installed, getattr(validator.schema, "version", "")


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def validated_in_a_worker(workers: int) -> tuple[list[SidecarIssue], list[str], int]:
    """In a shared-pool worker (here: a module a fresh worker imports without Django): the events validated with
    *workers* processes asked for, what the validation logged there, and the worker's process id."""
    kept, logger = _Kept(), logging.getLogger(validation.__name__)
    logger.addHandler(kept)
    logger.setLevel(logging.INFO)
    try:
        found = validate_sidecar(SIDECAR_HED, _events(), VERSION, name=NAME, workers=workers)
    finally:
        logger.removeHandler(kept)
    return found, [m for m in kept.messages if m.startswith("validating")], os.getpid()


@pytest.mark.parametrize("method", [m for m in ("fork", "forkserver") if m in multiprocessing.get_all_start_methods()])
def test_workers_load_the_schema_and_the_fast_delay_split(monkeypatch, method, fresh_pool):
    monkeypatch.setattr(df_util, "split_delay_tags", delays.original())  # a forked child would inherit ours
    monkeypatch.setattr(pool, "start_method", lambda: method)
    pool.configure_pool(1)
    workers, _ = pool.shared_pool()
    installed, version = workers.submit(_probe, json.dumps(SIDECAR_HED)).result(timeout=120)
    assert installed and version == VERSION


def test_the_lighter_row_loops_replace_hedtools_own_by_name_and_signature():
    """hedtools' validator still has the two loops RowValidator overrides (else an upgrade quietly drops them)."""
    import inspect

    from hed.validator.spreadsheet_validator import SpreadsheetValidator

    for name in ("_run_row_checks", "_recheck_duplicates"):
        ours, theirs = getattr(validation.RowValidator, name), getattr(SpreadsheetValidator, name)
        assert ours is not theirs
        assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters)
