"""REST API of dataset projects: every endpoint, anonymous, another user, bad payloads."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotations.datasets import services
from annotations.datasets.results import refresh_project
from annotations.models import AnnotationSession, DatasetColumn, DatasetLevel, DatasetProject, SessionStatus
from tests.datasets.conftest import EVENTS, SIDECAR
from tests.support.datasets import zip_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


def _upload(client: APIClient, files: list, **extra):
    return client.post("/api/datasets/", {"files": files, **extra}, format="multipart")


def _zip() -> SimpleUploadedFile:
    data = zip_bytes({"ds/dataset_description.json": b'{"Name": "x", "HEDVersion": "8.3.0"}',
                      "ds/sub-01/eeg/sub-01_task-faces_events.tsv": EVENTS.encode(),
                      "ds/task-faces_events.json": json.dumps(SIDECAR).encode(),
                      "ds/sub-01/eeg/sub-01_task-faces_eeg.edf": b"\0" * 100})
    return SimpleUploadedFile("ds.zip", data.getvalue(), content_type="application/zip")


@pytest.fixture
def project(user, small_files):
    return services.import_dataset(user=user, files=small_files, name="tiny")


def test_upload_a_zip_answers_201_with_the_inventory(api, user):
    response = _upload(api(user), [_zip()], name="Faces")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "Faces" and body["status"] == "ready" and body["schema_version"] == "8.3.0"
    task = body["tasks"][0]
    assert task["task"] == "faces" and task["sidecar"] == "task-faces_events.json"
    columns = {c["name"]: c for c in task["columns"]}
    assert columns["event_type"]["kind"] == "categorical"
    assert {lv["value"]: lv["count"] for lv in columns["event_type"]["levels"]} == {
        "show_star": 2, "show_house": 1, "press": 2}
    assert columns["response_time"]["kind"] == "value" and "#" in columns["response_time"]["template"]
    figures = {k: body["progress"][k] for k in ("total", "done", "valid", "reviewed")}
    assert figures == {"total": 5, "done": 0, "valid": 0, "reviewed": 0}
    assert body["progress"]["job"]["phase"] == "idle" and sum(body["progress"]["states"].values()) == 5


def test_upload_several_files(api, user, small_uploads):
    response = _upload(api(user), small_uploads, schema_version="8.4.0")
    assert response.status_code == 201 and response.json()["schema_version"] == "8.4.0"


@pytest.mark.parametrize(("files", "message"), [
    ([], "files"),
    ([SimpleUploadedFile("notes.txt", b"hello")], "no *_events.tsv"),
    ([SimpleUploadedFile("sub-01_task-a_events.tsv", b"onset\tduration\n1\t2\t3\n")], "line 2"),
    ([SimpleUploadedFile("sub-01_task-a_events.tsv", b"")], "sub-01_task-a_events.tsv"),
    ([SimpleUploadedFile("sub-01_task-a_events.tsv", "onset\tduration\n1\t\xe9\n".encode("latin-1"))], "UTF-8"),
    ([SimpleUploadedFile("sub-01_task-a_events.tsv", b"onset\n1\n"),
      SimpleUploadedFile("task-a_events.json", b"{not json")], "task-a_events.json"),
    ([SimpleUploadedFile("bad.zip", b"PK\x03\x04 not really a zip")], "bad.zip"),
])
def test_bad_uploads_are_400_naming_the_problem_and_store_nothing(api, user, files, message):
    response = _upload(api(user), files)
    assert response.status_code == 400, response.content
    assert message in json.dumps(response.json())
    assert not DatasetProject.objects.exists()


def test_a_zip_escaping_its_root_is_refused(api, user):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("sub-01_task-a_events.tsv", "onset\n1\n")
        zf.writestr("../../evil_events.tsv", "onset\n1\n")
    response = _upload(api(user), [SimpleUploadedFile("evil.zip", buffer.getvalue())])
    assert response.status_code == 400 and "evil_events.tsv" in json.dumps(response.json())
    assert not DatasetProject.objects.exists()


def test_a_zip_and_loose_files_together_are_refused(api, user, small_uploads):
    response = _upload(api(user), [_zip(), *small_uploads])
    assert response.status_code == 400 and "not both" in json.dumps(response.json())


def test_anonymous_gets_nothing(api, project):
    for method, url in [("get", "/api/datasets/"), ("post", "/api/datasets/"), ("get", f"/api/datasets/{project.pk}/"),
                        ("post", f"/api/datasets/{project.pk}/annotate/"),
                        ("get", f"/api/datasets/{project.pk}/sidecar/"),
                        ("get", f"/api/datasets/{project.pk}/download/")]:
        assert getattr(api(), method)(url).status_code in (401, 403), url


def test_another_users_project_is_404_everywhere(api, project, other_user):
    client = api(other_user)
    level = DatasetLevel.objects.first()
    column = DatasetColumn.objects.get(name="hand")
    assert client.get("/api/datasets/").json()["results"] == []
    for response in [client.get(f"/api/datasets/{project.pk}/"),
                     client.post(f"/api/datasets/{project.pk}/annotate/"),
                     client.get(f"/api/datasets/{project.pk}/sidecar/"),
                     client.get(f"/api/datasets/{project.pk}/download/"),
                     client.patch(f"/api/datasets/{project.pk}/levels/{level.pk}/", {"description": "x"},
                                  format="json"),
                     client.patch(f"/api/datasets/{project.pk}/columns/{column.pk}/", {"kind": "skip"},
                                  format="json")]:
        assert response.status_code == 404
    assert not AnnotationSession.objects.exists()


def test_reviewers_see_every_project(api, project, reviewer):
    assert api(reviewer).get(f"/api/datasets/{project.pk}/").status_code == 200


def test_list_and_detail_show_status_and_progress(api, user, project):
    listed = api(user).get("/api/datasets/").json()["results"]
    assert [p["id"] for p in listed] == [str(project.pk)] and "tasks" not in listed[0]
    detail = api(user).get(f"/api/datasets/{project.pk}/").json()
    assert detail["status"] == "ready" and detail["progress"]["total"] == 5


def test_patch_a_level_description_and_a_column(api, user, project):
    client = api(user)
    level = DatasetLevel.objects.get(value="show_house")
    response = client.patch(f"/api/datasets/{project.pk}/levels/{level.pk}/", {"description": "A house."},
                            format="json")
    assert response.status_code == 200 and response.json()["description"] == "A house."
    bad = client.patch(f"/api/datasets/{project.pk}/levels/{level.pk}/", {"description": ""}, format="json")
    assert bad.status_code == 400 and "description" in bad.json()
    column = DatasetColumn.objects.get(name="hand")
    response = client.patch(f"/api/datasets/{project.pk}/columns/{column.pk}/", {"kind": "skip"}, format="json")
    assert response.status_code == 200 and response.json()["kind"] == "skip"
    bad = client.patch(f"/api/datasets/{project.pk}/columns/{column.pk}/", {"kind": "colour"}, format="json")
    assert bad.status_code == 400 and "kind" in bad.json()
    deep = client.patch(f"/api/datasets/{project.pk}/columns/{column.pk}/", "[" * 5000 + "]" * 5000,
                        content_type="application/json")
    assert deep.status_code == 400


def test_annotate_answers_202_and_queues_one_run_per_level(api, user, project, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    response = api(user).post(f"/api/datasets/{project.pk}/annotate/", {"concurrency": 2}, format="json")
    assert response.status_code == 202, response.content
    assert response.json()["queued"] == 5 and response.json()["status"] == "annotating"
    assert AnnotationSession.objects.filter(dataset_level__isnull=False).count() == 5
    again = api(user).post(f"/api/datasets/{project.pk}/annotate/")
    assert again.status_code == 409
    bad = api(user).post(f"/api/datasets/{project.pk}/annotate/", {"concurrency": 99}, format="json")
    assert bad.status_code == 400


def test_sidecar_and_download(api, user, project):
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation="Sensory-event, Visual-presentation",
            machine_annotation="Sensory-event, Visual-presentation")
    client = api(user)
    waiting = client.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"})
    assert waiting.status_code == 202 and waiting.json()["status"] == "validating" and waiting["Retry-After"]
    refresh_project(project)  # what the job (or the background task it asked for) does
    response = client.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"})
    assert response.status_code == 200 and response["X-HED-Valid"] in ("true", "false")
    sidecar = response.json()
    assert set(sidecar["event_type"]["HED"]) == {"show_star", "show_house", "press"}
    assert client.get(f"/api/datasets/{project.pk}/sidecar/", {"task": "nope"}).status_code == 404
    download = client.get(f"/api/datasets/{project.pk}/download/")
    assert download.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as zf:
        assert json.loads(zf.read("task-faces_events.json"))["event_type"]["HED"]["press"]
        assert "sub-01_task-faces_run-1_events.tsv" in zf.namelist()
