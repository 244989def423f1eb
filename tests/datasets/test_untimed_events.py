"""An events file whose onset is n/a keeps the task's templates and levels, and is noted in plain words."""

from __future__ import annotations

import pytest

from annotations.datasets import services
from annotations.models import DatasetTask
from bidsdata.archive import read_uploads
from bidsdata.assembly import drop_repeated
from bidsdata.inventory import EventsFileNote, build_inventory

TIMED = "onset\tduration\tcue\tgain\n1.0\tn/a\tleft\t10\n2.0\tn/a\tright\t12\n"
UNTIMED = "onset\tduration\tcue\tgain\nn/a\tn/a\tleft\t10\nn/a\tn/a\tleft\t10\nn/a\tn/a\tright\t12\n"
ANNOTATIONS = {"cue": {"left": "Sensory-event, Visual-presentation, (Left-side-of)",
                       "right": "Sensory-event, Visual-presentation, (Right-side-of)"},
               "gain": "Label/#"}


def _files():
    return read_uploads([("sub-01_task-a_events.tsv", TIMED.encode()),
                         ("sub-01_task-a_acq-beh_events.tsv", UNTIMED.encode())])


def test_the_inventory_notes_the_file_in_plain_words():
    task = build_inventory(_files()).tasks[0]
    assert [lv.value for lv in task.column("cue").levels] == ["left", "right"]
    assert [lv.count for lv in task.column("cue").levels] == [3, 2]
    assert task.notes == [EventsFileNote(
        "sub-01_task-a_acq-beh_events.tsv",
        "the onset column is n/a on every row, so those rows are not events placed in time (BIDS events files "
        "give each event's onset in seconds); their levels are annotated all the same, and each such row is "
        "taken as an event of its own")]


def test_some_rows_without_an_onset_are_counted():
    text = "onset\tduration\tcue\n1.0\tn/a\tleft\nn/a\tn/a\tright\n3.0\tn/a\tleft\n"
    task = build_inventory(read_uploads([("sub-01_task-a_events.tsv", text.encode())])).tasks[0]
    assert "n/a on 1 of its 3 rows" in task.notes[0].message


@pytest.mark.django_db
def test_the_task_row_keeps_the_notes(user):
    project = services.import_dataset(user=user, files=_files(), name="beh")
    notes = DatasetTask.objects.get(project=project).notes
    assert [n["path"] for n in notes] == ["sub-01_task-a_acq-beh_events.tsv"]


def test_rows_without_an_onset_are_not_one_event():
    events = {path: text for path, text in _files().texts.items()}
    adjusted, notes = drop_repeated(ANNOTATIONS, events, ["cue", "gain"])
    assert adjusted == ANNOTATIONS
    assert not [n for n in notes if "one onset" in n.reason]


@pytest.mark.django_db
def test_the_written_sidecar_keeps_the_template_and_levels(user):
    import json

    from annotations.datasets.sidecars import task_sidecar

    sidecar = {"cue": {"Levels": {"left": "A cue on the left.", "right": "A cue on the right."},
                       "HED": ANNOTATIONS["cue"]}, "gain": {"Description": "Money won.", "HED": "Label/#"}}
    files = read_uploads([("sub-01_task-a_events.tsv", TIMED.encode()),
                          ("sub-01_task-a_acq-beh_events.tsv", UNTIMED.encode()),
                          ("task-a_events.json", json.dumps(sidecar).encode())])
    project = services.import_dataset(user=user, files=files, name="beh")
    result = task_sidecar(project, DatasetTask.objects.get(project=project))
    assert result.sidecar["gain"]["HED"] == "Label/#"
    assert set(result.sidecar["cue"]["HED"]) == {"left", "right"}
    assert not [note for note in result.dropped if "one onset" in note.reason]
    notes = [r for r in result.issue_rows() if r["code"] == "EVENTS_NOT_TIMED"]
    assert [n["source"] for n in notes] == ["sub-01_task-a_acq-beh_events.tsv"] and notes[0]["severity"] == "warning"
