"""Free-text marker columns (EEGLAB-style strings): read as words, annotated level by level, told apart by
their numbers, every row one proper event, and a question for each made-up meaning.

Small synthetic datasets only; the marker texts here are made up for the tests.
"""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command

from bidsdata.archive import read_uploads
from bidsdata.inventory import build_inventory
from bidsdata.markers import is_marker_column, marker_description, number_tags, read_marker
from bidsdata.questions import open_questions
from tests.bidsdata.composition.conftest import composed_sidecar, verdicts

VERSION = "8.4.0"
NAMES_ONLY = re.compile(r"\(?\b(Label|ID|Description|Parameter-label|Parameter-value)/[^,()]*\)?,?\s*")


def _marker_rows(trials: int = 12) -> list[tuple[str, str]]:
    """(type, value) rows of a made-up task: a baseline, numbered trials, responses, a pause, button pairs."""
    rows = [("Markers", "BASELINE-START")]
    for n in range(trials):
        side = "left" if n % 2 else "right"
        rows += [("Markers", f"Trial Start: No.{n}-angle:{25 + 10 * (n % 3)}-{side}"),
                 ("Markers", f"Stim-{side[0].upper()}-dot-{100 + n}"),
                 ("Markers", "KeyButtonA pressed"), ("Markers", "KeyButtonA released"),
                 ("Markers", f"Reaction: 0.{400 + 7 * n}-{side}-correct"),
                 ("Markers", f"End-Trial-{n}")]
    rows += [("Markers", "PAUSE"), ("Markers", "BASELINE-END")]
    return rows


def _events(rows: list[tuple[str, str]], pairs: bool = True) -> str:
    """An events file; with *pairs*, each press shares its onset with the next marker (two rows, one onset)."""
    lines, onset = ["onset\tduration\ttype\tvalue"], 1.0
    for i, (kind, value) in enumerate(rows):
        lines.append(f"{onset:.3f}\t0\t{kind}\t{value}")
        if not (pairs and value.endswith("pressed")) or i + 1 == len(rows):
            onset += 0.5
    return "\n".join(lines) + "\n"


def _task(events: str, sidecar: dict | None = None):
    uploads = [("sub-01_task-walk_events.tsv", events.encode())]
    if sidecar is not None:
        uploads.append(("task-walk_events.json", json.dumps(sidecar).encode()))
    return build_inventory(read_uploads(uploads)).tasks[0]


# --- reading a marker as words -----------------------------------------------------------------------


@pytest.mark.parametrize(("marker", "description"), [
    ("JoystickButtonC pressed", "Joystick button c pressed."),
    ("Trial Start: No.8-angle:50-up-up", "Trial start, number 8, angle 50, up, up."),
    ("Stim-35-R-hop-212", "Stimulus 35, right, hop 212."),
    ("Time between Alarm and LCD: 0.733", "Time between alarm and lcd 0.733."),
    ("rt=512ms", "Reaction time 512 ms."),
    ("QX:yes", "Qx, yes."),
])
def test_a_marker_is_read_as_words_with_each_number_beside_its_label(marker, description):
    assert marker_description(marker) == description


def test_a_number_is_labelled_by_the_word_before_it_or_the_thing_its_number_is_of():
    parts = {p.number: p.label for p in read_marker("Trial Start: No.8-angle:50-hop-212, Sub-No.-04") if p.number}
    assert parts == {"8": ("trial", "start"), "50": ("angle",), "212": ("hop",), "04": ("subject",)}
    assert [p.number for p in read_marker("blue--1")] == ["-1"]  # a sign after a separator
    assert [p.number for p in read_marker("ButtonTwo pressed") if p.number] == ["2"]  # a number word after a name


def test_labelled_numbers_become_values_of_tags_that_say_what_they_are():
    assert number_tags("Trial Start: No.8-angle:50", VERSION) == ["Experimental-trial/8", "Angle/50 degree"]
    assert number_tags("Reaction: 0.639", VERSION) == ["Time-interval/0.639"]
    assert number_tags("tone 1000 Hz", VERSION) == ["(Parameter-label/tone, Frequency/1000 Hz)"]
    assert number_tags("walk 167", VERSION) == ["(Parameter-label/walk, Item-index/167)"]
    assert number_tags("End-Trial-4.512", VERSION) == ["(Parameter-label/trial, Time-value/4.512)"]  # no trial 4.512
    assert number_tags("PAUSE", VERSION) == []


# --- which columns are marker columns ------------------------------------------------------------------


def test_bounded_repeated_marker_strings_make_a_categorical_column_with_made_up_descriptions():
    task = _task(_events(_marker_rows()), {"type": {"Description": "Type of the event", "Levels": {
        "Markers": "A marker the stimulus program sent."}}, "value": {"Description": "The marker's text."}})
    column = task.column("value")
    assert column.kind == "categorical" and len(column.levels) > 20
    level = column.level("Trial Start: No.3-angle:25-left")
    assert level.description == "Trial start, number 3, angle 25, left." and level.needs_description
    # Each made-up meaning is asked about; the one-level `type` column, described by the lab, is not.
    asked = {(q.column, q.level) for q in open_questions(task)}
    assert asked == {("value", lv.value) for lv in column.levels}


@pytest.mark.parametrize(("values", "marker"), [
    ([f"Trial Start: No.{n}" for n in range(30)], True),
    ([f"face_{n:02d}.bmp" for n in range(30)], False),  # file names: a Pathname/# value column
    ([f"word{n}" for n in range(30)], False),  # no free text: a template holds them
    ([f"Trial Start: No.{n}" for n in range(101)], False),  # too many to ask about one by one
])
def test_what_is_a_marker_column(values, marker):
    assert is_marker_column(dict.fromkeys(values, 3)) is marker


def test_running_text_that_never_repeats_stays_a_value_column():
    notes = [("Markers", f"Note {n}: the participant moved, sneezed") for n in range(30)]
    assert not is_marker_column(dict.fromkeys([v for _, v in notes], 1))
    assert _task(_events(notes)).column("value").kind == "value"


def test_free_text_no_template_can_carry_gets_a_column_question():
    rows = [("Markers", f"Start, block {n}, run {m}") for n in range(60) for m in range(3)]  # 180: too many
    task = _task(_events(rows, pairs=False))
    assert task.column("value").kind == "value"
    questions = [q for q in open_questions(task) if q.column == "value"]
    assert len(questions) == 1 and questions[0].level is None
    assert "no HED template can carry" in questions[0].text


# --- composed: numbers kept, bookkeeping not a stimulus, every row one event ----------------------------


def _offline_like(task) -> dict:
    """What a per-level annotator writes from the made-up words: numbers dropped, events not always typed."""
    hed = {}
    for level in task.column("value").levels:
        text = level.description.lower()
        if text.startswith("trial start"):
            hed[level.value] = "Experiment-structure, Experimental-trial, " + ("Left" if "left" in text else "Right")
        elif text.startswith("end, trial"):
            hed[level.value] = "Experiment-structure, Experimental-trial"
        elif text.startswith("reaction"):
            hed[level.value] = "Participant-response, Correct-action"
        elif "pressed" in text or "released" in text:
            act = "Press" if "pressed" in text else "Release"
            hed[level.value] = f"Agent-action, Participant-response, (Push-button, {act})"
        elif text.startswith("stimulus"):
            hed[level.value] = "Sensory-event, Visual-presentation, Experimental-stimulus, Circle"
        else:
            hed[level.value] = "Event"  # baseline start/end, pause: the catch-all
    return {"type": {"Markers": "Event"}, "value": hed}


def test_marker_levels_compose_to_distinct_events_that_pass_the_events_check(tmp_path):
    events = _events(_marker_rows())
    task = _task(events, {"type": {"Description": "Type of the event", "Levels": {"Markers": "Experiment marker"}}})
    sidecar, composition = composed_sidecar(task, _offline_like(task), events)
    assert composition.roles.get("value") == "event" and "type" not in composition.annotations
    levels = sidecar["value"]["HED"]
    assert "Experimental-trial/3" in levels["Trial Start: No.3-angle:25-left"]
    assert "Angle/25 degree" in levels["Trial Start: No.3-angle:25-left"]
    assert "Time-interval/0.421" in levels["Reaction: 0.421-left-correct"]
    assert "Agent-action" in levels["Reaction: 0.421-left-correct"]  # a response the annotator left untyped
    assert levels["PAUSE"].startswith("(Experiment-control")
    # Told apart by what they say, not by a name: without Label/ID/Parameter-*, still all different.
    meanings = [NAMES_ONLY.sub("", h) for h in levels.values()]
    assert len(set(meanings)) >= 0.9 * len(meanings)
    errors, checks, rows = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []
    assert all(r.strip() for r in rows)


def test_a_level_the_lab_described_is_annotated_as_they_said(tmp_path):
    events = _events(_marker_rows())
    task = _task(events)
    level = task.column("value").level("Trial Start: No.3-angle:25-left")
    level.description, level.needs_description = "The third practice trial begins.", False
    sidecar, _ = composed_sidecar(task, _offline_like(task), events)
    assert "Experimental-trial/3" not in sidecar["value"]["HED"][level.value]
    assert "Experimental-trial/4" in sidecar["value"]["HED"]["Trial Start: No.4-angle:35-right"]


# --- the whole command -----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_command_annotates_a_marker_task_and_asks_about_every_marker(tmp_path, capsys):
    folder = tmp_path / "markers"
    (folder / "sub-01" / "eeg").mkdir(parents=True)
    (folder / "dataset_description.json").write_text(json.dumps({"Name": "m", "BIDSVersion": "1.8.0",
                                                                  "HEDVersion": VERSION}))
    (folder / "sub-01" / "eeg" / "sub-01_task-walk_events.tsv").write_text(_events(_marker_rows()))
    questions = tmp_path / "q.tsv"
    call_command("annotate_dataset", str(folder), "--out", str(tmp_path / "out"), "--json",
                 "--questions", str(questions))
    task = json.loads(capsys.readouterr().out)["tasks"][0]
    figures = task["quality"]
    assert task["valid"] and figures["levels"] > 20
    assert figures["rows_hed"] == figures["rows"] and figures["rows_ok"] >= 0.95 * figures["rows"]
    assert figures["distinct_share"] >= 0.95
    asked = [line.split("\t")[1] for line in questions.read_text().splitlines()[1:] if line.startswith("value\t")]
    assert asked[0] == ""  # the column has no description either
    assert len(asked[1:]) == len(set(asked[1:])) == figures["levels"]  # one question per marker
    assert task["open_questions"] >= len(asked[1:])  # and `type`'s one level


@pytest.mark.django_db(transaction=True)
def test_thousands_of_free_text_markers_of_a_few_forms_get_hed_by_form(tmp_path, capsys):
    events = tmp_path / "sub-01_task-notes_events.tsv"
    events.write_text("onset\tduration\tvalue\n" + "".join(f"{i}.0\t0\tStart, block {i}, run {i % 3}\n"
                                                           for i in range(150)))
    questions = tmp_path / "q.tsv"
    call_command("annotate_dataset", str(events), "--out", str(tmp_path / "out"), "--json",
                 "--questions", str(questions))
    task = json.loads(capsys.readouterr().out)["tasks"][0]
    assert task["quality"]["rows_hed"] == 150 and task["valid"]
    asked = [line.split("\t")[:2] for line in questions.read_text().splitlines()[1:]]
    assert ["value", "Start, block #, run #"] in asked  # one question for the form, not 150


@pytest.mark.django_db(transaction=True)
def test_a_task_whose_free_text_gets_no_hed_does_not_say_zero_open_questions(tmp_path, capsys):
    # Free text of no few forms (a form per string: no pattern to annotate by) stays a value column.
    words = [chr(97 + i % 26) + chr(97 + i // 26) + "q" for i in range(150)]
    events = tmp_path / "sub-01_task-notes_events.tsv"
    events.write_text("onset\tduration\tvalue\n" + "".join(f"{i}.0\t0\tStart, {w} here\n"
                                                           for i, w in enumerate(words)))
    questions = tmp_path / "q.tsv"
    call_command("annotate_dataset", str(events), "--out", str(tmp_path / "out"), "--json",
                 "--questions", str(questions))
    task = json.loads(capsys.readouterr().out)["tasks"][0]
    assert task["quality"]["rows_hed"] == 0 and task["valid"]
    assert any(i["code"] == "LEFT_OUT" and i["column"] == "value" for i in task["issues"])
    rows = [line.split("\t") for line in questions.read_text().splitlines()[1:]]
    assert [(r[0], r[1]) for r in rows] == [("value", "")]  # the column is asked about
    assert "no HED template can carry" in rows[0][3]
