"""An events file with a header but no onset column is told so, not that it has no header."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from annotations.models import DatasetProject
from bidsdata.archive import DatasetError, read_uploads

NAME = "sub-01_task-a_events.tsv"


@pytest.mark.parametrize(("header", "problem"), [
    ("trial\tcue\t500\n", r"no 'onset' column \(line 1 names trial, cue, 500\); BIDS events files start with onset"),
    ("time\tcue\tx\t2\n", r"no 'onset' column \(line 1 names time, cue, x, 2\)"),
    ("Onset\tDuration\n", r"no 'onset' column .*write 'Onset' as 'onset', in lower case"),
])
def test_a_header_without_onset_names_the_missing_column(header, problem):
    with pytest.raises(DatasetError, match=rf"{NAME}: {problem}") as caught:
        row = "\t".join(["1"] * len(header.split("\t"))) + "\n"
        read_uploads([(NAME, (header + row).encode())])
    assert "no header row" not in str(caught.value)


@pytest.mark.parametrize("first", [b"1.0\tn/a\t3\n", b"1.0\t0.5\tleft\n", b"1\t2\tleft\n", b"7\tn/a\tgo\n"])
def test_a_first_line_of_values_is_still_no_header(first):
    with pytest.raises(DatasetError, match=rf"{NAME}: no header row"):
        read_uploads([(NAME, first + b"2.0\tn/a\t4\n")])


@pytest.mark.django_db
def test_the_api_answers_400_naming_the_missing_onset(user):
    api = APIClient()
    api.force_authenticate(user)
    upload = SimpleUploadedFile(NAME, b"trial\tcue\t500\n1\tgo\t3\n")
    response = api.post("/api/datasets/", {"files": [upload]}, format="multipart")
    assert response.status_code == 400
    assert "no 'onset' column" in response.content.decode() and "no header" not in response.content.decode()
    assert not DatasetProject.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_command_line_says_it_in_one_line(tmp_path):
    bad = tmp_path / NAME
    bad.write_bytes(b"trial\tcue\t500\n1\tgo\t3\n")
    with pytest.raises(CommandError) as caught:
        call_command("annotate_dataset", str(bad), "--out", str(tmp_path / "out"))
    message = str(caught.value)
    assert "\n" not in message and "no 'onset' column" in message and NAME in message
