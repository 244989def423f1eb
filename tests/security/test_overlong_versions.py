"""A schema version or library name far longer than any hedtools ships is refused with one message (400 on the
API and the upload, one line and a non-zero exit on the command line), before it becomes a file name the
system would refuse (ENAMETOOLONG) and before anything is stored."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from agents.schema import MAX_ENTRY_CHARS, UnknownSchemaVersion, check_version
from annotations.models import AnnotationSession, DatasetProject
from tests.datasets.conftest import EVENTS

pytestmark = pytest.mark.django_db

# Each one matches the form of a HEDVersion entry, so it would be looked up as a file of that name.
OVERLONG = ["8" * 300 + ".4.0", "8.4." + "0" * 300, "a" * 300 + "_8.4.0", "sc:" + "score" * 60 + "_1.0.0",
            "p" * 300 + ":score_1.0.0"]


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("version", OVERLONG)
def test_check_version_refuses_an_overlong_entry_naming_its_length(version: str) -> None:
    with pytest.raises(UnknownSchemaVersion, match=rf"at most {MAX_ENTRY_CHARS}"):
        check_version(f"8.4.0,{version}")


@pytest.mark.parametrize("version", OVERLONG)
def test_validate_api_answers_400_on_an_overlong_version(api: APIClient, version: str) -> None:
    response = api.post("/api/validate/", {"hed": "Red", "schema_version": version}, format="json")
    assert response.status_code == 400
    assert "at most" in json.dumps(response.json())


@pytest.mark.parametrize("version", OVERLONG)
def test_sessions_api_answers_400_and_stores_no_run(api: APIClient, version: str) -> None:
    response = api.post("/api/sessions/", {"description": "A red circle.", "schema_version": version},
                        format="json")
    assert response.status_code == 400
    assert "schema_version" in response.json()
    assert not AnnotationSession.objects.exists()


@pytest.mark.parametrize("version", [OVERLONG[2], [OVERLONG[3]]])
def test_an_upload_declaring_an_overlong_hed_version_is_refused(api: APIClient, version: object) -> None:
    description = json.dumps({"Name": "x", "BIDSVersion": "1.8.0", "HEDVersion": version}).encode()
    response = api.post("/api/datasets/", {"files": [
        SimpleUploadedFile("dataset_description.json", description),
        SimpleUploadedFile("sub-01_task-faces_events.tsv", EVENTS.encode())]}, format="multipart")
    assert response.status_code == 400
    assert "HEDVersion" in json.dumps(response.json())
    assert not DatasetProject.objects.exists()


def test_the_cli_says_one_line_without_a_file_path() -> None:
    with pytest.raises(CommandError) as refused:
        call_command("validate", "Red", "--schema", OVERLONG[2])
    message = str(refused.value)
    assert "\n" not in message and "schema_data" not in message and f"at most {MAX_ENTRY_CHARS}" in message
