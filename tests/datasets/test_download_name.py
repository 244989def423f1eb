"""The download holds the events files and sidecars an upload keeps, and every place that offers it says so."""

from __future__ import annotations

import io
import zipfile

import pytest
from rest_framework.test import APIClient

from annotations.datasets import services

pytestmark = pytest.mark.django_db


def test_the_zip_is_named_for_what_it_holds(client, user, small_files):
    project = services.import_dataset(user=user, files=small_files, name="tiny set")
    client.force_login(user)
    response = client.get(f"/datasets/{project.pk}/download/")
    assert response["Content-Disposition"] == 'attachment; filename="tiny_set_events_and_sidecars.zip"'
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        # All it holds: no recordings, ever uploaded; and the note on what it adds.
        assert set(zf.namelist()) == {*small_files.paths(), "README_HED.md"}
    sidecar_page = client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/").content.decode()
    assert "Whole dataset" not in sidecar_page and "All events files and sidecars (zip)" in sidecar_page
    api = APIClient()
    api.force_authenticate(user)
    download = api.get(f"/api/datasets/{project.pk}/download/")
    assert download["Content-Disposition"] == f'attachment; filename="dataset-{project.pk}_events_and_sidecars.zip"'
    schema = api.get("/api/schema/", {"format": "json"}).content.decode()
    assert "The dataset's events files and sidecars, with the new sidecars in place, as a zip" in schema
    assert "Not the whole dataset" in schema
