"""A level's page: its description with Save and Save & next, which stays in the level's task."""

from __future__ import annotations

import json

import pytest

from annotations.datasets import services
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from bidsdata.archive import read_uploads

pytestmark = pytest.mark.django_db

EVENTS = ("onset\tduration\tcue\tside\n1\tn/a\tgo\tleft\n2\tn/a\tstop\tright\n3\tn/a\twait\tleft\n")


def _project(user, name: str, described: tuple[str, ...] = ()):
    """Two tasks (a, b), each with columns cue (go, stop, wait) and side (left, right); *described* levels
    have a human description in the uploaded sidecar."""
    levels = {"cue": {v: f"The {v} cue." for v in ("go", "stop", "wait") if v in described},
              "side": {v: f"The {v} side." for v in ("left", "right") if v in described}}
    sidecar = {column: {"Levels": texts} for column, texts in levels.items() if texts}
    files = read_uploads([(f"sub-01_task-{t}_events.tsv", EVENTS.encode()) for t in ("a", "b")]
                         + [(f"task-{t}_events.json", json.dumps(sidecar).encode()) for t in ("a", "b")])
    return services.import_dataset(user=user, files=files, name=name)


def _level(project, task: str, column: str, value: str) -> DatasetLevel:
    return DatasetLevel.objects.get(column__task__project=project, column__task__name=task, column__name=column,
                                    value=value)


def _valid_run(level: DatasetLevel, user) -> None:
    session = services.create_level_sessions(level.column.task.project, [level], user=user)[0]
    AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                           final_annotation="Sensory-event")


def test_the_page_shows_the_level_with_save_and_save_and_next(client, user):
    project = _project(user, "p")
    level = _level(project, "a", "cue", "stop")
    client.force_login(user)
    page = client.get(f"/datasets/{project.pk}/levels/{level.pk}/").content.decode()
    assert 'id="level-form"' in page and 'id="level-save-next"' in page and "cue: stop" in page
    assert "Made up from the names" in page
    project_page = client.get(project.get_absolute_url()).content.decode()
    assert f'href="/datasets/{project.pk}/levels/{level.pk}/"' in project_page


def test_save_and_next_goes_to_the_next_level_of_the_same_task_needing_work(client, user, other_user):
    # A newer project of the same user, and another user's: neither must be reached from this one.
    project = _project(user, "p", described=("go", "stop", "left"))
    _project(user, "newer")
    _valid_run(_level(project, "a", "cue", "wait"), user)
    client.force_login(user)
    go = _level(project, "a", "cue", "go")
    response = client.post(f"/datasets/{project.pk}/levels/{go.pk}/",
                           {"description": "Move as fast as you can.", "next": "1"})
    # stop is described and has no run: it needs work (pending); wait has a valid run and a made-up text.
    assert response["Location"] == f"/datasets/{project.pk}/levels/{_level(project, 'a', 'cue', 'stop').pk}/"
    assert DatasetLevel.objects.get(pk=go.pk).description == "Move as fast as you can."
    _valid_run(_level(project, "a", "cue", "stop"), user)
    response = client.post(f"/datasets/{project.pk}/levels/{_level(project, 'a', 'cue', 'stop').pk}/",
                           {"description": "Do not move.", "next": "1"})
    wait = _level(project, "a", "cue", "wait")  # a valid run, but its description is still made up
    assert response["Location"] == f"/datasets/{project.pk}/levels/{wait.pk}/"


def test_save_and_next_wraps_within_the_task_and_ends_on_the_project_page(client, user):
    project = _project(user, "p", described=("go", "stop", "wait", "left", "right"))
    for column, value in [("cue", "go"), ("cue", "stop"), ("side", "left")]:
        _valid_run(_level(project, "a", column, value), user)
    client.force_login(user)
    right = _level(project, "a", "side", "right")  # last in task a; wait (earlier) still needs a run
    response = client.post(f"/datasets/{project.pk}/levels/{right.pk}/",
                           {"description": "The right button is pressed.", "next": "1"})
    wait = _level(project, "a", "cue", "wait")
    assert response["Location"] == f"/datasets/{project.pk}/levels/{wait.pk}/"
    for level in (wait, right):
        _valid_run(level, user)
    response = client.post(f"/datasets/{project.pk}/levels/{wait.pk}/",
                           {"description": "Hold still until the next cue.", "next": "1"}, follow=True)
    assert response.redirect_chain[-1][0] == f"{project.get_absolute_url()}#task-a"
    assert "No other level of task a needs work." in response.content.decode()


def test_plain_save_from_the_page_stays_and_from_the_row_goes_back(client, user):
    project = _project(user, "p")
    level = _level(project, "a", "cue", "go")
    client.force_login(user)
    url = f"/datasets/{project.pk}/levels/{level.pk}/"
    assert client.post(url, {"description": "Go.", "from": "level"})["Location"] == url
    assert client.post(url, {"description": "Go!"})["Location"] == f"{project.get_absolute_url()}#level-{level.pk}"
    bad = client.post(url, {"description": "", "next": "1"})
    assert bad.status_code == 400 and "field-error" in bad.content.decode()
    assert DatasetLevel.objects.get(pk=level.pk).description == "Go!"


def test_another_users_level_is_a_404(client, user, other_user):
    project = _project(user, "p")
    level = _level(project, "a", "cue", "go")
    client.force_login(other_user)
    assert client.get(f"/datasets/{project.pk}/levels/{level.pk}/").status_code == 404
    assert client.post(f"/datasets/{project.pk}/levels/{level.pk}/", {"description": "x"}).status_code == 404

