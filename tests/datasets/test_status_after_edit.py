"""A status says what is true: after the job wrote ``done``, an edit (a level's description, a correction) makes the
project read ``validating`` on its page and in the API for as long as its sidecar answers 202, and ``done`` again
once the background task stored the sidecar for the new annotations (then the sidecar answers 200)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotations.datasets import inventory_edits, services
from annotations.datasets.results import store_current, validate_sidecar_task
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, JobStatus, SessionStatus

pytestmark = pytest.mark.django_db
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
HED = "Sensory-event, Experimental-stimulus, Visual-presentation"


@pytest.fixture
def done_project(user, small_files, settings):
    settings.TASKS = DUMMY_TASKS  # the background validation runs only when the test says
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation=HED, machine_annotation=HED)
    store_current(project)
    DatasetProject.objects.filter(pk=project.pk).update(status=JobStatus.DONE)
    project.refresh_from_db()
    return project


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_level_edit_reads_validating_until_the_sidecar_is_stored(user, done_project, client):
    api = _api(user)
    detail = f"/api/datasets/{done_project.pk}/"
    assert api.get(detail).json()["status"] == "done"
    assert api.get(f"{detail}sidecar/").status_code == 200

    star = DatasetLevel.objects.get(value="show_star")
    assert api.patch(f"{detail}levels/{star.pk}/", {"description": "A yellow star in the middle of the screen."},
                     format="json").status_code == 200
    assert api.get(f"{detail}sidecar/").status_code == 202
    body = api.get(detail).json()
    assert body["status"] == "validating" and body["progress"]["job"]["phase"] == "validating"
    client.force_login(user)
    page = client.get(done_project.get_absolute_url()).content.decode()
    assert 'data-status="validating"' in page and 'data-status="done"' not in page

    validate_sidecar_task.call(str(done_project.pk), done_project.tasks.get().pk)
    assert api.get(detail).json()["status"] == "done"
    assert api.get(f"{detail}sidecar/").status_code == 200


def test_a_correction_on_the_level_page_reads_validating_too(user, done_project, client):
    client.force_login(user)
    star = DatasetLevel.objects.get(value="show_star")
    response = client.post(f"/datasets/{done_project.pk}/levels/{star.pk}/correct/",
                           {"hed": "Sensory-event, Experimental-stimulus, Visual-presentation, (Yellow, Star)"})
    assert response.status_code == 302, response.content.decode()[:2000]
    api = _api(user)
    assert api.get(f"/api/datasets/{done_project.pk}/sidecar/").status_code == 202
    assert api.get(f"/api/datasets/{done_project.pk}/").json()["status"] == "validating"


def test_an_edit_that_changes_nothing_the_sidecar_reads_keeps_done(user, done_project):
    star = DatasetLevel.objects.get(value="show_star")
    inventory_edits.set_level_description(star, star.description)  # the same text: the same sidecar
    assert _api(user).get(f"/api/datasets/{done_project.pk}/").json()["status"] == "done"
