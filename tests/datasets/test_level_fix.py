"""A fix where the error is: the level page shows the issue that sent the lab there and corrects the level, and
its rows are shown checked again after saving."""

from __future__ import annotations

import json
import re

import pytest

from annotations.datasets import services
from annotations.datasets.results import refresh_sidecar
from annotations.models import AnnotationSession, DatasetLevel, Revision, SessionStatus
from bidsdata.archive import read_uploads

pytestmark = pytest.mark.django_db

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
EVENTS = "onset\tduration\tcue\n1\tn/a\tgo\n2\tn/a\tstop\n3\tn/a\tgo\n"
GOOD = "Sensory-event, Visual-presentation, Experimental-stimulus, (Green, Circle)"
BAD = "Not-a-real-tag-xyz"
FIX = "Sensory-event, Visual-presentation, Experimental-stimulus, (Red, Square)"


@pytest.fixture
def project(user, settings):
    settings.TASKS = DUMMY_TASKS
    sidecar = {"cue": {"Levels": {"go": "A green circle tells the participant to move.",
                                  "stop": "A red square tells the participant to stay still."}}}
    files = read_uploads([("sub-01_task-t_events.tsv", EVENTS.encode()),
                          ("task-t_events.json", json.dumps(sidecar).encode())])
    project = services.import_dataset(user=user, files=files, name="p")
    go, stop = (DatasetLevel.objects.get(column__task__project=project, value=v) for v in ("go", "stop"))
    good, bad = services.create_level_sessions(project, [go, stop], user=user)
    AnnotationSession.objects.filter(pk=good.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                        final_annotation=GOOD, machine_annotation=GOOD)
    # stop's run ended without valid HED: the sidecar lacks it, and its row gets no HED at all.
    AnnotationSession.objects.filter(pk=bad.pk).update(status=SessionStatus.INVALID, is_valid=False,
                                                       final_annotation=BAD, machine_annotation=BAD)
    refresh_sidecar(project, project.tasks.get())  # what the job's validating phase stores
    return project


def _level(project, value: str) -> DatasetLevel:
    return DatasetLevel.objects.get(column__task__project=project, value=value)


def _rows(page: str) -> dict[str, str]:
    """The level's rows on its page: line -> data-ok."""
    section = page[page.index('id="level-fix"'):page.index('id="level-edit"')]
    return {line: ok for ok, line in re.findall(r'data-ok="(\w+)" data-line="(\d+)"', section)}


def test_the_level_page_shows_the_issue_and_the_rows_that_sent_the_lab_there(client, user, project):
    client.force_login(user)
    stop = client.get(f"/datasets/{project.pk}/levels/{_level(project, 'stop').pk}/").content.decode()
    issues = re.search(r'id="level-issues">(.*?)</ul>', stop, re.S)
    assert issues and 'data-code="MISSING_HED"' in issues.group(1) and "has no valid HED yet" in issues.group(1)
    assert _rows(stop) == {"3": "false"} and "NO_HED" in stop  # its row, failing the event check, with the code
    assert 'id="level-correct"' in stop
    go = client.get(f"/datasets/{project.pk}/levels/{_level(project, 'go').pk}/").content.decode()
    assert _rows(go) == {"2": "true", "4": "true"} and 'id="level-issues-none"' in go


def test_saving_a_correction_on_the_level_page_updates_its_rows(client, user, project):
    stop = _level(project, "stop")
    url = f"/datasets/{project.pk}/levels/{stop.pk}/"
    client.force_login(user)  # the project's owner, not a reviewer: she fixes her own level
    response = client.post(f"{url}correct/", {"hed": FIX})
    assert response.status_code == 302 and response["Location"] == url
    assert Revision.objects.filter(session__dataset_level=stop, after=FIX, is_valid=True).exists()
    pending = client.get(url).content.decode()
    assert 'data-pending="true"' in pending  # checked again in the background: the page polls
    refresh_sidecar(project, project.tasks.get())  # what the background task does
    page = client.get(url).content.decode()
    assert 'data-pending="false"' in page and _rows(page) == {"3": "true"}
    assert "MISSING_HED" not in page[page.index('id="level-fix"'):page.index('id="level-edit"')]


def test_a_refused_correction_is_named_beside_the_field_and_stores_nothing(client, user, other_user, project):
    stop = _level(project, "stop")
    client.force_login(user)
    response = client.post(f"/datasets/{project.pk}/levels/{stop.pk}/correct/", {"hed": "Another-made-up-tag"})
    assert response.status_code == 400 and "field-error" in response.content.decode()
    assert not Revision.objects.filter(session__dataset_level=stop).exists()
    client.force_login(other_user)  # cannot see the project at all
    assert client.post(f"/datasets/{project.pk}/levels/{stop.pk}/correct/", {"hed": FIX}).status_code == 404
