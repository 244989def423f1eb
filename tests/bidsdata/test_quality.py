"""A sidecar's row preview and quality figures (bidsdata.quality), checked against hedtools' real verdicts and the
referee's own scoring (/work/shared/eval/score_events.py)."""

from __future__ import annotations

import importlib.util
import json
import warnings

import pytest

from bidsdata.quality import event_starts, quality, row_preview
from tests.support.datasets import DATA

REFEREE = DATA.parents[1] / "eval" / "score_events.py"
SIDECAR = {
    "event_type": {"HED": {
        "show": "Sensory-event, Experimental-stimulus, Visual-presentation, (Red, Circle)",
        "press": "Agent-action, Participant-response, (Press, Keyboard-key)",
        "both": "Sensory-event, Agent-action, Visual-presentation, Participant-response"}},
    "cond": {"HED": {"a": "Def/Cond-a", "b": "Def/Cond-b"}},
    "shape": {"HED": {"circle": "(Item-count/1, Circle)", "disk": "(Item-count/1, Circle)"}},
    "defs": {"HED": {"a": "(Definition/Cond-a, (Condition-variable/Colour, Red))",
                     "b": "(Definition/Cond-b, (Condition-variable/Colour, Blue))"}},
}
EVENTS = ("onset\tduration\tevent_type\tcond\tshape\n"
          "1.0\tn/a\tshow\ta\tcircle\n"
          "2.0\tn/a\tpress\tb\tn/a\n"
          "3.0\tn/a\tboth\ta\tdisk\n"
          "4.0\tn/a\tshow\tb\tn/a\n"
          "5.0\tn/a\tshow\tn/a\tn/a\n"
          "5.0\tn/a\tpress\tn/a\tn/a\n"
          "6.0\tn/a\tn/a\tn/a\tn/a\n")


def test_each_row_gets_hedtools_event_check_verdict():
    rows = row_preview(SIDECAR, {"sub-01_task-x_events.tsv": EVENTS}, "8.4.0")
    assert [r.line for r in rows] == [2, 3, 4, 5, 6, 7, 8]
    proper, press, both = rows[0], rows[1], rows[2]
    assert proper.ok and press.ok and proper.issues == []
    assert "Sensory-event, Experimental-stimulus" in proper.hed and "Def/Cond-a" in proper.hed  # not expanded
    assert ("event_type", "show") in proper.values
    # Two top-level event types in one event: hedtools cannot tell which tags belong to which.
    assert not both.ok and [i.code for i in both.issues] == ["IMPROPER_EVENT_GROUPS"]
    assert both.sources == [("event_type", "both"), ("cond", "a"), ("shape", "disk")]
    assert proper.sources == []  # only failing rows name who gives them HED


def test_rows_of_one_onset_are_one_event_and_fail_together():
    rows = row_preview(SIDECAR, {"sub-01_task-x_events.tsv": EVENTS}, "8.4.0")
    show, press = rows[4], rows[5]
    assert [i.code for i in show.issues] == ["IMPROPER_EVENT_GROUPS"] and show.merged_into is None
    assert not press.ok and press.merged_into == 6  # merged into line 6's event
    assert press.sources == [("event_type", "show"), ("event_type", "press")]
    assert [i.code for i in rows[6].issues] == ["NO_HED"]  # nothing gives the last row HED
    assert event_starts(["1", "2", "2.0", "n/a", "3"]) == [0, 1, 1, 3, 4]


def test_quality_counts_passing_rows_distinct_levels_and_condition_factors():
    found = quality(SIDECAR, {"sub-01_task-x_events.tsv": EVENTS}, "8.4.0")
    # 7 rows; the last has no HED, line 4 and line 6 fail; line 7 (merged into line 6) passes, as the referee counts.
    assert (found.rows, found.rows_hed, found.rows_ok) == (7, 6, 4)
    # event_type 3 distinct, cond 2 distinct (definitions expanded), shape: two identical levels; defs left out.
    assert (found.levels, found.levels_distinct) == (7, 5)
    assert found.distinct_share == pytest.approx(5 / 7)
    assert found.factors == ["colour"]
    assert found.to_dict()["rows_ok_share"] == pytest.approx(4 / 7, abs=1e-4)


def test_identical_levels_are_not_distinct():
    sidecar = {"trial": {"HED": {"go": "Sensory-event, Experimental-stimulus, Visual-presentation, Green",
                                 "stop": "Sensory-event, Experimental-stimulus, Visual-presentation, Green"}}}
    events = "onset\tduration\ttrial\n1\tn/a\tgo\n2\tn/a\tstop\n"
    found = quality(sidecar, {"sub-01_task-x_events.tsv": events}, "8.4.0")
    assert (found.levels, found.levels_distinct, found.distinct_share) == (2, 0, 0.0)
    sidecar["trial"]["HED"]["stop"] += ", Label/Stop"
    assert quality(sidecar, {"sub-01_task-x_events.tsv": events}, "8.4.0").levels_distinct == 2


def test_a_file_hedtools_cannot_check_passes_no_row_and_says_why():
    unordered = "onset\tduration\tevent_type\n2.0\tn/a\tshow\n1.0\tn/a\tpress\n"
    found = quality(SIDECAR, {"a_task-x_events.tsv": EVENTS, "b_task-x_events.tsv": unordered}, "8.4.0")
    assert found.rows == 9 and found.rows_ok == 4 and found.unchecked == ["b_task-x_events.tsv"]
    rows = row_preview(SIDECAR, {"b_task-x_events.tsv": unordered}, "8.4.0")
    assert [i.code for r in rows for i in r.issues] == ["NOT_CHECKED", "NOT_CHECKED"]


def test_both_are_bounded():
    files = {f"sub-{n:02d}_task-x_events.tsv": EVENTS for n in range(1, 6)}
    found = quality(SIDECAR, files, "8.4.0", max_files=2)
    assert (found.files, found.files_total, found.rows) == (2, 5, 14)
    assert quality(SIDECAR, files, "8.4.0", max_rows=10).files == 2  # no further file once 10 rows are in
    preview = row_preview(SIDECAR, files, "8.4.0", limit=9)
    assert [(r.file[:6], r.line) for r in preview][-3:] == [("sub-01", 8), ("sub-02", 2), ("sub-02", 3)]
    long = "onset\tduration\tevent_type\n" + "".join(f"{i}.0\tn/a\tshow\n" for i in range(50_000))
    assert [r.line for r in row_preview(SIDECAR, {"sub-01_task-x_events.tsv": long}, "8.4.0", limit=3)] == [2, 3, 4]


def test_hedtools_reads_each_events_text_once(monkeypatch):
    """The assembly, EventsChecker and the condition variables share one parse of a file's text."""
    import hed.models

    made: list[str] = []

    class Counted(hed.models.TabularInput):
        def __init__(self, *args, **kwargs):
            made.append(kwargs.get("name"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(hed.models, "TabularInput", Counted)
    files = {"a_task-x_events.tsv": EVENTS, "b_task-x_events.tsv": EVENTS}
    found = quality(SIDECAR, files, "8.4.0")
    assert (found.rows_ok, found.factors) == (8, ["colour"]) and made == sorted(files)
    made.clear()
    assert len(row_preview(SIDECAR, files, "8.4.0", limit=3)) == 3 and made == ["a_task-x_events.tsv"]


def test_the_checker_and_the_condition_variables_share_one_event_manager_per_file(monkeypatch):
    """Each file's rows are split and parsed into events once, for EventsChecker and HedTypeManager both."""
    from hed.tools.analysis import event_manager

    made: list[str] = []

    class Counted(event_manager.EventManager):
        def __init__(self, input_data, *args, **kwargs):
            made.append(input_data.name)
            super().__init__(input_data, *args, **kwargs)

    monkeypatch.setattr(event_manager, "EventManager", Counted)
    files = {"a_task-x_events.tsv": EVENTS, "b_task-x_events.tsv": EVENTS.replace("\tb\t", "\tn/a\t")}
    found = quality(SIDECAR, files, "8.4.0")
    assert made == sorted(files)
    assert (found.rows, found.rows_ok, found.factors) == (14, 8, ["colour"])


def test_a_shared_parse_still_orders_a_file_whose_onsets_have_hed():
    # Assembling types a categorical column as pandas categories: a checker reading the onsets after it must
    # still find them in order.
    sidecar = {**SIDECAR, "onset": {"HED": {"1.0": "Label/First", "2.0": "Label/Second"}}}
    found = quality(sidecar, {"sub-01_task-x_events.tsv": EVENTS}, "8.4.0")
    assert (found.rows, found.rows_ok, found.unchecked, found.factors) == (7, 4, [], ["colour"])


def _referee():
    spec = importlib.util.spec_from_file_location("score_events", REFEREE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not REFEREE.is_file(), reason="the referee is not beside the project")
def test_figures_agree_with_the_referee_on_a_real_dataset():
    from hed.schema import load_schema_version

    root = DATA / "eeg_ds004106s_hed"
    sidecar_path = next(root.glob("task-*_events.json"))
    task = sidecar_path.name.split("_")[0].removeprefix("task-")
    version = json.loads((root / "dataset_description.json").read_text())["HEDVersion"]
    events = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
              for p in sorted(root.rglob(f"*task-{task}_*events.tsv"))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _referee().score(str(sidecar_path), str(root), load_schema_version(version))
    found = quality(json.loads(sidecar_path.read_text()), events, version)
    assert expected["rows"] > 1000 and 0 < expected["rows_ok"] < expected["rows"]
    assert (found.rows, found.rows_ok, found.rows_hed) == (expected["rows"], expected["rows_ok"], expected["rows_hed"])
    assert (found.levels, found.levels_distinct) == (expected["cols"], expected["cols_distinct"])
    assert found.files == expected["files"] and found.factors

