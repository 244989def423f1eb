"""The dataset's README and root task files reach each task's context; LongName reaches its column."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.datasets import services
from annotations.models import DatasetFile, DatasetTask
from bidsdata.archive import MAX_CONTEXT_BYTES, read_folder, read_uploads, read_zip
from bidsdata.context import MAX_FIELD_CHARS, MAX_README_CHARS, TaskContext
from bidsdata.inventory import Inventory, build_inventory
from bidsdata.limits import LimitExceeded, UploadLimits
from tests.support.datasets import zip_bytes, zip_folder

TSV = b"onset\tduration\tcue\n1\tn/a\tleft\n2\tn/a\tright\n"
BOLD = {"TaskName": "Cue task", "TaskDescription": "A cue points left or right.",
        "Instructions": ["Look at the cue.", "Press the side it points to."], "RepetitionTime": 2}


def _lab_folder(tmp_path):
    """A made-up dataset as a lab shares it: a README, a task file with a long description, one events file."""
    folder = tmp_path / "lab"
    (folder / "sub-01" / "eeg").mkdir(parents=True)
    (folder / "README.md").write_text("# Star tapping\n\nParticipants tap when a star blinks.\n" * 120)
    task_file = {"TaskName": "Star tapping", "TaskDescription": "A star blinks  on the screen and the participant "
                 "taps a key as soon as it does. " * 60, "EEGReference": "Cz"}
    (folder / "task-tapping_eeg.json").write_text(json.dumps(task_file))
    (folder / "sub-01" / "eeg" / "sub-01_task-tapping_events.tsv").write_bytes(TSV)
    return folder, task_file


def test_a_datasets_readme_and_task_file_are_read(tmp_path):
    folder, task_file = _lab_folder(tmp_path)
    files = read_folder(folder)
    assert set(files.context) == {"README.md", "task-tapping_eeg.json"}
    context = build_inventory(files).tasks[0].context
    assert context.task_name == task_file["TaskName"]
    description = " ".join(task_file["TaskDescription"].split())
    assert len(description) > MAX_FIELD_CHARS and context.task_description.endswith("\u2026")
    assert description.startswith(context.task_description[:-1]) and len(context.task_description) <= MAX_FIELD_CHARS
    readme = (folder / "README.md").read_text(encoding="utf-8").strip()
    assert len(readme) > MAX_README_CHARS and context.readme == readme[:MAX_README_CHARS]
    # The same dataset zipped inside its folder reads the same.
    zipped = read_zip(zip_folder(folder, tmp_path / "lab.zip", top="lab"))
    assert build_inventory(zipped).tasks[0].context == context


def test_context_is_kept_apart_from_the_files_written_back():
    files = read_uploads([("ds/sub-01/func/sub-01_task-cue_events.tsv", TSV), ("ds/README", b"A study of cues."),
                          ("ds/task-cue_bold.json", json.dumps(BOLD).encode()),
                          ("ds/code/README.md", b"how to run the scripts"),  # not the dataset's README
                          ("ds/sub-01/func/sub-01_task-cue_bold.json", b'{"TaskName": "deeper"}')])
    assert files.paths() == ["sub-01/func/sub-01_task-cue_events.tsv"]
    assert set(files.context) == {"README", "task-cue_bold.json"}
    task = build_inventory(files).tasks[0]
    assert task.context == TaskContext(readme="A study of cues.", task_name="Cue task",
                                       task_description="A cue points left or right.",
                                       instructions="Look at the cue. Press the side it points to.")
    assert Inventory.from_dict(json.loads(json.dumps(build_inventory(files).to_dict()))).tasks[0] == task


def test_each_task_gets_its_own_task_file():
    files = read_uploads([("sub-01_task-a_events.tsv", TSV), ("sub-01_task-b_events.tsv", TSV),
                          ("task-a_eeg.json", b'{"TaskName": "Alpha"}'), ("task-b_eeg.json", b'{"TaskName": "Beta"}')])
    assert [t.context.task_name for t in build_inventory(files).tasks] == ["Alpha", "Beta"]


def test_context_files_are_bounded_and_never_refuse_an_upload():
    long_readme = ("Ünïcode line\n" * 10_000).encode()
    files = read_zip(zip_bytes({"sub-01_task-a_events.tsv": TSV, "README.txt": long_readme,
                                "task-a_bold.json": b'{"TaskName": "' + b"x" * MAX_CONTEXT_BYTES + b'"}',
                                "task-a_eeg.json": b"not json", "task-a_meg.json": b"[1, 2]"}))
    assert len(files.context["README.txt"].encode()) <= MAX_CONTEXT_BYTES
    assert "\ufffd" not in files.context["README.txt"]  # cut between characters, not inside one
    assert set(files.context) == {"README.txt"}  # the oversized, broken and non-object task files are left out
    assert len(build_inventory(files).tasks[0].context.readme) == MAX_README_CHARS


def test_context_counts_in_the_upload_limits():
    with pytest.raises(LimitExceeded, match=r"README: the kept files expand to over 2,000 bytes"):
        read_uploads([("sub-01_task-a_events.tsv", TSV), ("README", b"x" * 5000)],
                     limits=UploadLimits(max_expanded_bytes=2000))


def test_long_names_reach_the_columns():
    sidecar = {"cue": {"LongName": "Cue side", "Description": "Where the cue points."}}
    files = read_uploads([("sub-01_task-a_events.tsv", TSV), ("task-a_events.json", json.dumps(sidecar).encode())])
    task = build_inventory(files).tasks[0]
    assert task.column("cue").long_name == "Cue side"
    assert task.column("onset").long_name is None


@pytest.mark.django_db
def test_the_task_row_keeps_its_context(user):
    files = read_uploads([("sub-01_task-cue_events.tsv", TSV), ("README", b"A study of cues."),
                          ("task-cue_bold.json", json.dumps(BOLD).encode())])
    project = services.import_dataset(user=user, files=files, name="cues")
    task = DatasetTask.objects.get(project=project)
    assert TaskContext.from_dict(task.context) == build_inventory(files).tasks[0].context
    assert task.context["task_name"] == "Cue task"
    assert not DatasetFile.objects.filter(path__in=["README", "task-cue_bold.json"]).exists()


@pytest.mark.django_db
def test_files_picked_one_by_one_on_the_page_keep_their_context(client, user):
    client.force_login(user)
    uploads = [SimpleUploadedFile("sub-01_task-cue_events.tsv", TSV), SimpleUploadedFile("README.md", b"Cues."),
               SimpleUploadedFile("task-cue_eeg.json", json.dumps(BOLD).encode())]
    assert client.post("/datasets/", {"files": uploads, "concurrency": 4}).status_code == 302
    assert DatasetTask.objects.get().context == {"readme": "Cues.", "task_name": "Cue task",
                                                 "task_description": "A cue points left or right.",
                                                 "instructions": "Look at the cue. Press the side it points to."}
