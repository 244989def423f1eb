"""Dataset pages: upload, project page with filters, edits, annotate all, sidecar page, downloads."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.datasets import services
from annotations.datasets.results import refresh_project
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, SessionStatus
from tests.datasets.conftest import EVENTS

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(user, small_files):
    return services.import_dataset(user=user, files=small_files, name="tiny")


def test_pages_need_a_login(client, project):
    for url in ["/datasets/", f"/datasets/{project.pk}/", f"/datasets/{project.pk}/tasks/faces/sidecar/"]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_upload_then_project_page(client, user, small_uploads):
    client.force_login(user)
    response = client.post("/datasets/", {"files": small_uploads, "concurrency": 4})
    project = DatasetProject.objects.get()
    assert response.status_code == 302 and response["Location"] == project.get_absolute_url()
    page = client.get(project.get_absolute_url()).content.decode()
    assert 'id="dataset-counts"' in page and f'ws-connect="/ws/datasets/{project.pk}/"' in page
    assert page.count('data-status="pending"') == 5 and "show_house" in page


def test_a_bad_upload_shows_the_error_beside_the_field(client, user):
    client.force_login(user)
    bad = SimpleUploadedFile("sub-01_task-a_events.tsv", b"onset\tduration\n1\t2\t3\n")
    response = client.post("/datasets/", {"files": [bad], "concurrency": 4})
    assert response.status_code == 400 and "line 2" in response.content.decode()
    assert not DatasetProject.objects.exists()


def test_another_users_project_is_404(client, other_user, project):
    client.force_login(other_user)
    assert client.get(f"/datasets/{project.pk}/").status_code == 404
    assert client.post(f"/datasets/{project.pk}/annotate/").status_code == 404
    assert client.get(f"/datasets/{project.pk}/download/").status_code == 404


def test_filter_levels_by_status(client, user, project):
    level = DatasetLevel.objects.get(value="press")
    session = services.create_level_sessions(project, [level], user=user)[0]
    AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                           final_annotation="Agent-action")
    client.force_login(user)
    page = client.get(f"/datasets/{project.pk}/?status=valid").content.decode()
    assert page.count("<tr id=\"level-") == 1 and f'id="level-{level.pk}"' in page


def test_edit_a_description_and_a_column_kind(client, user, project):
    client.force_login(user)
    level = DatasetLevel.objects.get(value="left")
    client.post(f"/datasets/{project.pk}/levels/{level.pk}/", {"description": "The left index finger."})
    assert DatasetLevel.objects.get(pk=level.pk).description == "The left index finger."
    column = level.column
    response = client.post(f"/datasets/{project.pk}/columns/{column.pk}/", {"kind": "skip"}, follow=True)
    assert response.status_code == 200
    column.refresh_from_db()
    assert column.kind == "skip"
    response = client.post(f"/datasets/{project.pk}/columns/{column.pk}/", {"kind": "nope"}, follow=True)
    assert "Select a valid choice" in response.content.decode()


def test_annotate_all_queues_the_job(client, user, project, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    client.force_login(user)
    response = client.post(f"/datasets/{project.pk}/annotate/", follow=True)
    assert "Annotating 5 level(s)" in response.content.decode()
    assert DatasetProject.objects.get().status == "annotating"


def test_sidecar_page_lists_issues_with_links_and_downloads(client, user, project):
    client.force_login(user)
    assert 'id="sidecar-validating"' in client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/").content.decode()
    refresh_project(project)  # what the job (or the background task the page asked for) does
    page = client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/").content.decode()
    assert 'id="sidecar-awaiting"' in page and "MISSING_HED" in page and "Fix this level" in page
    # hedtools accepts it: levels without HED make it incomplete, never "not valid" (the task card's verdict)
    assert "Not valid yet" not in page and "without HED yet" in page
    body = client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/?format=json")
    assert body["Content-Disposition"].endswith('"task-faces_events.json"')
    assert json.loads(body.content)["event_type"]["Levels"]["press"]
    tsv = client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/?format=tsv").content.decode()
    assert tsv.splitlines()[0].split("\t") == ["column_name", "column_value", "description", "HED"]
    assert client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/?format=xml").status_code == 400
    assert client.get(f"/datasets/{project.pk}/tasks/nope/sidecar/").status_code == 404


def test_download_zip_has_the_new_sidecar_in_place(client, user, project):
    client.force_login(user)
    response = client.get(f"/datasets/{project.pk}/download/")
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        names = set(zf.namelist())
        assert {"task-faces_events.json", "dataset_description.json", "sub-01_task-faces_run-1_events.tsv"} <= names
        assert zf.read("sub-01_task-faces_run-1_events.tsv").decode() == EVENTS


def test_review_next_goes_to_a_levels_run(client, user, project):
    client.force_login(user)
    assert client.get(f"/datasets/{project.pk}/review-next/")["Location"] == project.get_absolute_url()
    level = DatasetLevel.objects.get(value="press")
    session = services.create_level_sessions(project, [level], user=user)[0]
    AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.INVALID, is_valid=False)
    assert client.get(f"/datasets/{project.pk}/review-next/")["Location"] == f"/sessions/{session.pk}/"


def test_a_level_run_links_back_to_its_project(client, user, project):
    level = DatasetLevel.objects.get(value="press")
    session = services.create_level_sessions(project, [level], user=user)[0]
    client.force_login(user)
    page = client.get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="run-level"' in page and f"{project.get_absolute_url()}#level-{level.pk}" in page
