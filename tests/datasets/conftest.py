"""Fixtures for the Django side of dataset projects: a small synthetic dataset, uploads."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bidsdata.archive import DatasetFiles, read_uploads
from bidsdata.pool import configure_pool, drop_pool

EVENTS = (
    "onset\tduration\tevent_type\thand\tresponse_time\n"
    "1.0\t0.5\tshow_star\tn/a\tn/a\n"
    "2.0\t0.5\tshow_house\tn/a\tn/a\n"
    "3.0\tn/a\tpress\tleft\t0.43\n"
    "4.0\t0.5\tshow_star\tn/a\tn/a\n"
    "5.0\tn/a\tpress\tright\t0.51\n"
)
SIDECAR = {
    "event_type": {"Description": "What happened", "Levels": {
        "show_star": "A star appears in the centre of the screen.",
        "show_house": "A picture of a house appears in the centre of the screen.",
        "press": "The participant presses a button."}},
    "hand": {"Description": "The hand that pressed", "Levels": {"left": "The left hand.", "right": "The right hand."}},
    "response_time": {"Description": "Time from the stimulus to the press", "Units": "s"},
}


@pytest.fixture
def small_files() -> DatasetFiles:
    """Two runs of one task, a root sidecar with Levels and Units, and a HEDVersion."""
    return read_uploads([
        ("dataset_description.json", json.dumps({"Name": "tiny", "BIDSVersion": "1.8.0", "HEDVersion": "8.2.0"})
         .encode()),
        ("sub-01_task-faces_run-1_events.tsv", EVENTS.encode()),
        ("sub-01_task-faces_run-2_events.tsv", EVENTS.encode()),
        ("task-faces_events.json", json.dumps(SIDECAR).encode()),
    ])


@pytest.fixture
def small_uploads() -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile("sub-01_task-faces_run-1_events.tsv", EVENTS.encode()),
            SimpleUploadedFile("task-faces_events.json", json.dumps(SIDECAR).encode())]


@pytest.fixture
def fresh_pool():
    """Each test starts and ends with no shared validation pool and no configured size."""
    configure_pool(None)
    yield
    configure_pool(None)
    drop_pool()
