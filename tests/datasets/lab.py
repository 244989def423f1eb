"""A small dataset with open questions for the lab, shared by the questions and quality tests.

``trial_type`` has a level nobody described (``blink_twice``), ``value`` a bare code whose description only
restates it (``6``: "Trigger 6"), and ``stage`` no sidecar entry at all (a column question, and its two levels).
"""

from __future__ import annotations

import json
from pathlib import Path

from annotations.datasets import services
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, SessionStatus
from bidsdata.archive import DatasetFiles, read_uploads

EVENTS = ("onset\tduration\ttrial_type\tvalue\tstage\n"
          "1.0\t0.5\tshow_star\t7\tearly\n"
          "2.0\tn/a\tpress\t7\tearly\n"
          "3.0\t0.5\tblink_twice\t6\tlate\n"
          "4.0\tn/a\tpress\t7\tlate\n")
SIDECAR = {
    "trial_type": {"Description": "What happened.", "Levels": {
        "show_star": "A star appears in the centre of the screen.",
        "press": "The participant presses a button."}},
    "value": {"Description": "The trigger code the stimulus computer sent.",
              "Levels": {"6": "Trigger 6", "7": "The trial's sound plays."}},
}
QUESTIONS = [
    ("trial_type", "blink_twice", "What does `blink_twice` mean in column `trial_type`?"),
    ("value", "6", "What does `6` mean in column `value` (its other codes: 7)?"),
    ("stage", None, "What does column `stage` record? Is it a condition of the experiment?"),
    ("stage", "early", "What does `early` mean in column `stage`?"),
    ("stage", "late", "What does `late` mean in column `stage`?"),
]
GOOD = {"show_star": "Sensory-event, Experimental-stimulus, Visual-presentation, (Image, Star)",
        "press": "Agent-action, Participant-response, (Press, Keyboard-key)"}
NO_ROLE = "Sensory-event, (Image, Star)"  # no task role, no modality: hedtools' event check fails the row


def lab_files() -> DatasetFiles:
    return read_uploads([
        ("dataset_description.json", json.dumps({"Name": "stars", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"})
         .encode()),
        ("sub-01_task-stars_events.tsv", EVENTS.encode()),
        ("task-stars_events.json", json.dumps(SIDECAR).encode()),
    ])


def lab_folder(tmp_path: Path) -> Path:
    """The lab's files as a BIDS folder on disk (for the command line)."""
    folder = tmp_path / "stars"
    folder.mkdir()
    (folder / "dataset_description.json").write_text(json.dumps({"Name": "made up", "BIDSVersion": "1.8.0",
                                                                  "HEDVersion": "8.4.0"}))
    (folder / "task-stars_events.json").write_text(json.dumps(SIDECAR))
    (folder / "sub-01_task-stars_events.tsv").write_text(EVENTS)
    return folder


def lab_project(user, name: str = "stars") -> DatasetProject:
    return services.import_dataset(user=user, files=lab_files(), name=name)


def level(project: DatasetProject, column: str, value: str) -> DatasetLevel:
    return DatasetLevel.objects.select_related("column__task").get(
        column__task__project=project, column__name=column, value=value)


def finish(session: AnnotationSession, hed: str, *, valid: bool = True) -> None:
    AnnotationSession.objects.filter(pk=session.pk).update(
        status=SessionStatus.SUCCEEDED if valid else SessionStatus.INVALID, machine_annotation=hed,
        final_annotation=hed, is_valid=valid)


def annotate(project: DatasetProject, user, hed: dict[tuple[str, str], str]) -> None:
    """A finished, valid run for each (column, level) given."""
    for (column, value), text in hed.items():
        [session] = services.create_level_sessions(project, [level(project, column, value)], user=user)
        finish(session, text)
