"""One file, one name: zip members and uploads are normalised (``./``, ``//``) and compared without letter case,
so no file is counted or written twice; a second spelling of a name is refused with a 400 naming it."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotations.models import DatasetFile, DatasetLevel, DatasetProject
from bidsdata.archive import DatasetError, read_uploads, read_zip
from bidsdata.members import check_member_name
from tests.datasets.conftest import EVENTS

pytestmark = pytest.mark.django_db


def _zip(names: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name in names:
            info = zipfile.ZipInfo("placeholder")
            info.filename = name  # stored raw: ZipInfo would tidy some names itself
            zf.writestr(info, EVENTS)
    return buffer.getvalue()


@pytest.mark.parametrize(("name", "normal"), [
    ("sub-01/./sub-01_task-a_events.tsv", "sub-01/sub-01_task-a_events.tsv"),
    ("sub-01//sub-01_task-a_events.tsv", "sub-01/sub-01_task-a_events.tsv"),
    ("./sub-01_task-a_events.tsv", "sub-01_task-a_events.tsv"),
    ("sub-01/", "sub-01"), ("./", ""), ("", ""),
])
def test_member_names_are_normalised(name, normal):
    assert check_member_name(name) == normal


def test_a_member_spelled_with_dot_slash_is_read_under_its_plain_name():
    files = read_zip(io.BytesIO(_zip(["sub-01/./sub-01_task-a_events.tsv", "sub-02//sub-02_task-a_events.tsv"])))
    assert files.paths() == ["sub-01/sub-01_task-a_events.tsv", "sub-02/sub-02_task-a_events.tsv"]


@pytest.mark.parametrize("second", ["sub-01/./sub-01_task-a_events.tsv", "sub-01//sub-01_task-a_events.tsv",
                                    "SUB-01/sub-01_task-A_events.tsv"])
def test_a_second_spelling_of_a_member_is_refused_with_a_400_naming_it(user, second):
    api = APIClient()
    api.force_authenticate(user)
    upload = SimpleUploadedFile("ds.zip", _zip(["sub-01/sub-01_task-a_events.tsv", second]),
                                content_type="application/zip")
    response = api.post("/api/datasets/", {"files": [upload]}, format="multipart")
    assert response.status_code == 400, response.content
    message = json.dumps(response.json())
    assert "two entries with this name" in message and check_member_name(second) in message
    for model in (DatasetProject, DatasetFile, DatasetLevel):
        assert not model.objects.exists()


def test_uploads_differing_only_in_letter_case_are_refused():
    with pytest.raises(DatasetError, match=r"SUB-01/sub-01_task-a_events\.tsv: the same file appears twice"):
        read_uploads([("sub-01/sub-01_task-a_events.tsv", EVENTS.encode()),
                      ("SUB-01/sub-01_task-a_events.tsv", EVENTS.encode())])
