"""Column kinds a curator would choose when no sidecar entry says: bookkeeping skipped, codes categorical."""

from __future__ import annotations

import json

import pytest

from bidsdata.archive import read_uploads
from bidsdata.columns import detected_kind, is_magnitude, made_up_description
from bidsdata.inventory import TaskInventory, build_inventory


def _task(tsv: str, sidecar: dict | None = None, *, files: int = 1):
    uploads = [(f"sub-0{i + 1}_task-a_events.tsv", tsv.encode()) for i in range(files)]
    if sidecar is not None:
        uploads.append(("task-a_events.json", json.dumps(sidecar).encode()))
    return build_inventory(read_uploads(uploads)).tasks[0]


def test_codes_are_categorical_and_magnitudes_values():
    """A made-up gambling task: whole-number codes are levels; gains and losses (few whole numbers, but
    magnitudes), scores and times are values."""
    rows = "".join(f"{i}.0\tn/a\tgamble\t{(10, 20, 30)[i % 3]}\t{(5, 10, 15, 20)[i % 4]}\t{0.37 * i - 1.2:.2f}\t"
                   f"{0.4 + i / 17:.3f}\t{(-1, 1, 0)[i % 3]}\t{(2, 0, 3, 1)[i % 4]}\n" for i in range(12))
    task = _task("onset\tduration\ttrial_type\tgain\tloss\trisk_score\tresponse_time\tchoice_code\tanswer_num\n"
                 + rows)
    kinds = {c.name: c.kind for c in task.columns}
    assert kinds["answer_num"] == kinds["choice_code"] == "categorical"
    assert kinds["gain"] == kinds["loss"] == kinds["risk_score"] == kinds["response_time"] == "value"
    assert kinds["trial_type"] == "categorical"  # one text value: still a level
    assert [lv.value for lv in task.column("choice_code").levels] == ["-1", "1", "0"]


def test_sample_positions_and_event_counters_are_skipped_and_trial_numbers_are_values():
    rows = "".join(f"{i}.0\tn/a\t{100 + 7 * i}\t{i + 1}\t{i}\t{3 * i}\t{i % 2}\n" for i in range(10))
    task = _task(f"onset\tduration\tstim_sample\ttrial_number\tevent_index\tscore\tside\n{rows}")
    kinds = {c.name: c.kind for c in task.columns}
    assert kinds == {"onset": "skip", "duration": "skip", "stim_sample": "skip", "trial_number": "value",
                     "event_index": "skip", "score": "value", "side": "categorical"}
    # Which trial a row belongs to is said of its event (Experimental-trial/#), asked of nobody.
    assert task.column("trial_number").levels == [] and not task.column("trial_number").needs_description


def test_a_column_counting_up_by_one_in_every_file_is_a_counter():
    counting = "onset\tduration\tn\tcode\n" + "".join(f"{i}\tn/a\t{i + 5}\t{1 + i % 3}\n" for i in range(4))
    task = _task(counting, files=2)  # each file counts 5, 6, 7, 8
    assert task.column("n").kind == "skip"
    assert task.column("code").kind == "categorical"
    short = _task("onset\tduration\tn\n1\tn/a\t1\n2\tn/a\t2\n")  # two rows say too little: a code
    assert short.column("n").kind == "categorical"


def test_trial_is_categorical_when_the_sidecar_declares_its_levels():
    tsv = "onset\tduration\ttrial\n1\tn/a\t1\n2\tn/a\t2\n3\tn/a\t3\n"
    assert _task(tsv).column("trial").kind == "value"
    declared = _task(tsv, {"trial": {"Levels": {"1": "Practice.", "2": "Test.", "3": "Test again."}}})
    assert declared.column("trial").kind == "categorical"
    assert [lv.value for lv in declared.column("trial").levels] == ["1", "2", "3"]


def test_a_trial_column_of_words_is_not_a_counter():
    task = _task("onset\tduration\ttrial\n1\tn/a\tgo\n2\tn/a\tstop\n3\tn/a\tgo\n")
    assert task.column("trial").kind == "categorical"


@pytest.mark.parametrize(("name", "values", "kind"), [
    ("value", ["1", "2", "11", "12"], "categorical"),  # an event code, not a magnitude
    ("response", ["1", "2"], "categorical"),
    ("gain", ["10", "20", "30"], "value"),
    ("n_trials", ["4", "5"], "value"),
    ("number_of_targets", ["1", "2"], "value"),
    ("reaction_time", ["1", "2"], "value"),
    ("rewards", ["0", "5"], "value"),
    ("code", [str(i) for i in range(9)], "value"),  # nine distinct numbers: past a code
    ("code", ["1.5", "2"], "value"),  # a fraction is no code
    ("condition", ["easy"], "categorical"),  # one text value: a single level
])
def test_detected_kinds(name, values, kind):
    assert detected_kind(name, values) == kind


def test_magnitude_names():
    assert is_magnitude("RT") and is_magnitude("stim_duration") and is_magnitude("losses")
    assert not is_magnitude("value") and not is_magnitude("key_code") and not is_magnitude("network")


def test_a_made_up_description_keeps_a_numbers_sign():
    task = _task("onset\tduration\tanswer_code\n1\tn/a\t-1\n2\tn/a\t1\n3\tn/a\t0\n")
    assert [lv.description for lv in task.column("answer_code").levels] == [
        "answer code: -1", "answer code: 1", "answer code: 0"]


def test_marker_strings_are_categorical_when_bounded_and_file_names_stay_values():
    markers = {f"Trial Start: No.{n}-angle:{n % 3}": 2 for n in range(40)}
    assert detected_kind("value", list(markers)) == "value"  # without the counts: too many to be codes
    assert detected_kind("value", list(markers), counts=markers) == "categorical"
    files = {f"stim/face {n}.bmp": 2 for n in range(40)}
    assert detected_kind("stim_file", list(files), counts=files) == "value"  # a Pathname/# column
    many = {f"Trial Start: No.{n}": 2 for n in range(150)}
    assert detected_kind("value", list(many), counts=many) == "value"


def test_an_events_column_of_marker_strings_gets_levels_read_as_words():
    rows = "".join(f"{i}.0\tn/a\t{'KeyA pressed' if i % 2 else f'Trial Start: No.{i // 2}'}\n" for i in range(60))
    column = _task(f"onset\tduration\tvalue\n{rows}").column("value")
    assert column.kind == "categorical" and len(column.levels) == 31
    assert column.level("Trial Start: No.7").description == "Trial start, number 7."
    pressed = column.level("KeyA pressed")
    assert pressed.description == "Key a pressed." and pressed.needs_description


def test_a_made_up_description_reads_a_type_columns_level_as_a_kind_of_its_thing():
    assert made_up_description("trial_type", "go") == "go trial"
    assert made_up_description("stim_type", "house_photo") == "house photo stimulus"
    assert made_up_description("BlockType", "rest block") == "rest block"  # the noun is not said twice
    assert made_up_description("trial_type", "2") == "trial type: 2"  # a bare number is no kind
    assert made_up_description("block_mode", "fast_pace") == "block mode: fast pace"


def _runs(values: dict[int, str], column: str = "run_no") -> TaskInventory:
    uploads = [(f"sub-01_task-a_run-0{run}_events.tsv",
                f"onset\tduration\ttrial_type\t{column}\n1.0\t0.5\tgo\t{v}\n2.0\t0.5\tstop\t{v}\n".encode())
               for run, v in values.items()]
    return build_inventory(read_uploads(uploads)).tasks[0]


def test_a_column_repeating_each_files_run_number_is_bookkeeping():
    assert _runs({1: "1", 2: "2", 3: "3"}).column("run_no").kind == "skip"
    assert _runs({1: "01", 2: "02"}).column("run_no").kind == "skip"  # as the file name writes it
    # not the run number in some file: a value of the design (a set of stimuli, a difficulty)
    assert _runs({1: "3", 2: "1", 3: "2"}).column("run_no").kind == "categorical"
    # one run number in all: nothing tells it from a condition that happens to be 1
    assert _runs({1: "1"}).column("run_no").kind == "categorical"
