"""Descriptions edited in the portal are what the written sidecar says, over the uploaded sidecar's text."""

from __future__ import annotations

import copy
import json

import pytest

from annotations.datasets import services
from annotations.datasets.sidecars import task_sidecar
from annotations.models import DatasetColumn, DatasetLevel, DatasetTask
from bidsdata.archive import read_uploads
from bidsdata.inventory import build_inventory
from bidsdata.sidecar import build_sidecar
from tests.datasets.conftest import EVENTS, SIDECAR


def _task():
    files = read_uploads([("sub-01_task-faces_events.tsv", EVENTS.encode()),
                          ("task-faces_events.json", json.dumps(SIDECAR).encode())])
    return build_inventory(files).tasks[0]


def test_stored_level_and_column_descriptions_win_over_the_uploaded_ones():
    task = _task()
    task.column("event_type").level("press").description = "The participant presses the left or right button."
    task.column("event_type").description = "The kind of event."
    sidecar = build_sidecar(task, {}).sidecar
    assert sidecar["event_type"]["Levels"]["press"] == "The participant presses the left or right button."
    assert sidecar["event_type"]["Description"] == "The kind of event."
    # Unedited texts stay as uploaded, in the uploaded order; other keys stay too.
    assert list(sidecar["event_type"]["Levels"]) == list(SIDECAR["event_type"]["Levels"])
    assert sidecar["event_type"]["Levels"]["show_star"] == SIDECAR["event_type"]["Levels"]["show_star"]
    assert sidecar["response_time"]["Units"] == "s"


def test_a_declared_level_absent_from_the_data_keeps_its_text():
    task = _task()
    task.original_sidecar = copy.deepcopy(task.original_sidecar)
    task.original_sidecar["hand"]["Levels"]["both"] = "Both hands."
    assert build_sidecar(task, {}).sidecar["hand"]["Levels"]["both"] == "Both hands."


@pytest.mark.django_db
def test_an_edit_on_the_page_reaches_the_sidecar(client, user, small_files):
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    level = DatasetLevel.objects.get(value="press")
    client.force_login(user)
    client.post(f"/datasets/{project.pk}/levels/{level.pk}/", {"description": "A button press, left or right."})
    DatasetColumn.objects.filter(name="hand").update(description="Which hand pressed the button.")
    sidecar = task_sidecar(project, DatasetTask.objects.get(project=project), validate=False).sidecar
    assert sidecar["event_type"]["Levels"]["press"] == "A button press, left or right."
    assert sidecar["hand"]["Description"] == "Which hand pressed the button."
