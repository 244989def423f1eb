"""Validated sidecars are stored: the sidecar page and API answer from them at once (never running hedtools
in the request), and say "validating" while the current annotations have no result yet."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotations.datasets import inventory_edits, results, services, sidecars
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus, SidecarResult

pytestmark = pytest.mark.django_db
HED = "Sensory-event, Experimental-stimulus, Visual-presentation"


@pytest.fixture
def project(user, small_files):
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation=HED, machine_annotation=HED)
    return project


@pytest.fixture
def api():
    def make(user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make


@pytest.fixture
def no_hedtools(monkeypatch):
    """Composing, validating or checking rows in the request fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("hedtools ran inside the request")

    for module, name in ((results, "task_sidecar"), (sidecars, "sidecar_for_task"), (sidecars, "pipeline_in_pool"),
                         (results.hed_quality, "quality"), (results.hed_quality, "row_preview")):
        monkeypatch.setattr(module, name, refuse)


@pytest.fixture
def asked(monkeypatch):
    found: list[tuple] = []

    class Spy:
        def enqueue(self, *args):
            found.append(args)

    monkeypatch.setattr(results, "validate_sidecar_task", Spy())
    return found


def test_a_current_result_answers_the_page_and_api_in_one_request_without_hedtools(client, api, user, project,
                                                                                  request):
    results.refresh_project(project)  # the job's last step
    request.getfixturevalue("no_hedtools")
    client.force_login(user)
    page = client.get(f"/datasets/{project.pk}/tasks/faces/sidecar/").content.decode()
    assert 'id="sidecar-validating"' not in page and "show_star" in page
    response = api(user).get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"})
    assert response.status_code == 200 and "show_star" in response.json()["event_type"]["HED"]
    assert response["X-HED-Valid"] in ("true", "false")


def test_changed_annotations_say_validating_and_ask_for_the_new_result_once(client, api, user, project, asked,
                                                                           no_hedtools,
                                                                           django_capture_on_commit_callbacks):
    client.force_login(user)
    url = f"/datasets/{project.pk}/tasks/faces/sidecar/"
    with django_capture_on_commit_callbacks(execute=True):
        page = client.get(url).content.decode()
        again = api(user).get(f"/api/datasets/{project.pk}/sidecar/", {"task": "faces"})
    assert 'id="sidecar-validating"' in page and 'hx-trigger="every 3s"' in page
    assert again.status_code == 202 and again.json()["status"] == "validating"
    assert asked == [(str(project.pk), project.tasks.get().pk)]  # once, however many requests


def test_the_background_task_stores_the_result_the_pages_then_read(client, user, project):
    task = project.tasks.get()
    assert results.current_sidecar(project, task, ask=False).pending
    assert results.validate_sidecar_task.call(str(project.pk), task.pk) in ("valid", "invalid")
    assert SidecarResult.objects.filter(task=task).count() == 1
    stored = results.current_sidecar(project, task, ask=False)
    assert not stored.pending and stored.sidecar["event_type"]["HED"]["show_star"].startswith("(Sensory-event")
    assert stored.checked["figures"]["rows"] > 0  # the quality line's figures, stored with it


def test_an_edit_shows_the_last_result_as_stale_until_the_new_one_is_stored(user, project, asked):
    task = project.tasks.get()
    results.refresh_project(project)
    level = DatasetLevel.objects.get(value="press")
    inventory_edits.set_level_description(level, "The participant presses the left button with the index finger.")
    stale = results.current_sidecar(project, task, ask=False)
    assert stale.pending and stale.sidecar  # the last validated sidecar, marked as not current
    assert not stale.is_valid
    results.refresh_project(project)
    assert not results.current_sidecar(project, task, ask=False).pending
    assert SidecarResult.objects.filter(task=task).count() == 2
