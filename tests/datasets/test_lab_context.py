"""What the lab's pages say and offer: edit forms only to who may edit, a download named for the dataset, a level's
run placed in its project, and the address `make run` serves at.

Column and level names here are made up.
"""

from __future__ import annotations

import json
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.management import call_command

from annotations.datasets import services
from annotations.datasets.downloads import zip_download_name
from annotations.datasets.fragments import level_fragment
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from annotations.routing import websocket_urlpatterns
from annotations.runs.broadcasts import broadcast
from bidsdata.archive import read_uploads

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ("onset\tduration\tshape\tpad\n"
          "1.0\t0.5\tzigzag\tnorth\n"
          "2.0\t0.5\tspiral\tsouth\n"
          "3.0\t0.5\tzigzag\tsouth\n")
# "shape" is described; "pad" is not, so its levels are open questions with answer boxes.
SIDECAR = {"shape": {"Description": "The shape drawn", "Levels": {"zigzag": "A zigzag line is drawn on the screen.",
                                                                   "spiral": "A spiral is drawn on the screen."}}}
EDIT_FORMS = {
    "annotate all": 'id="annotate-all"',
    "column kind": 'name="kind"',
    "level description": 'name="description"',
    "question answer": 'name="answer"',
    "annotate a level": "/annotate/",
}


def make_project(owner, name: str = "shapes"):
    files = read_uploads([
        ("dataset_description.json", json.dumps({"Name": "made up", "BIDSVersion": "1.8.0",
                                                 "HEDVersion": "8.4.0"}).encode()),
        ("sub-01_task-draw_events.tsv", EVENTS.encode()),
        ("task-draw_events.json", json.dumps(SIDECAR).encode()),
    ])
    return services.import_dataset(user=owner, files=files, name=name)


@pytest.mark.django_db
def test_a_reviewer_sees_the_project_without_its_edit_forms(client, user, reviewer):
    project = make_project(user)
    client.force_login(user)
    owner_page = client.get(project.get_absolute_url()).content.decode()
    assert all(marker in owner_page for marker in EDIT_FORMS.values()), "the owner lost a form"
    client.force_login(reviewer)
    response = client.get(project.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    shown = [name for name, marker in EDIT_FORMS.items() if marker in page]
    assert not shown, f"a reviewer is offered forms the server refuses: {shown}"
    # What the forms held is still read: the descriptions, the kinds, the questions.
    assert "A zigzag line is drawn on the screen." in page and "Categorical" in page
    assert 'class="ds-question' in page and "Not answered yet." in page


@pytest.mark.django_db
def test_a_pushed_row_has_forms_only_for_an_editor(user):
    project = make_project(user)
    level = DatasetLevel.objects.get(column__task__project=project, value="zigzag")
    editable = level_fragment(level.pk, "t" * 32, can_edit=True)
    read_only = level_fragment(level.pk, "t" * 32, can_edit=False)
    assert "<form" in editable and 'name="description"' in editable
    assert "<form" not in read_only and "A zigzag line is drawn on the screen." in read_only


@pytest.mark.django_db(transaction=True)
async def test_the_socket_pushes_a_reviewer_rows_without_forms(user, reviewer):
    project = await sync_to_async(make_project)(user)
    level = await DatasetLevel.objects.aget(column__task__project=project, value="zigzag")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/datasets/{project.pk}/")
    communicator.scope["user"] = reviewer
    communicator.scope["cookies"] = {"csrftoken": "c" * 32}
    connected, _ = await communicator.connect()
    assert connected
    await communicator.receive_from(timeout=5)  # the counts, at once
    session = (await sync_to_async(services.create_level_sessions)(project, [level], user=user))[0]
    await AnnotationSession.objects.filter(pk=session.pk).aupdate(
        status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation="Sensory-event, Visual-presentation")
    await broadcast(session.pk, "status")
    pushed = await communicator.receive_from(timeout=5)
    assert f'id="level-{level.pk}"' in pushed and 'data-status="valid"' in pushed
    assert "<form" not in pushed, "a reviewer's pushed row carries edit forms"
    await communicator.disconnect()


@pytest.mark.parametrize(("name", "expected"), [
    ("ds116.zip", "ds116_events_and_sidecars.zip"),
    ("My Study.ZIP", "My_Study_events_and_sidecars.zip"),
    ("lab data.tar.gz", "lab_data_events_and_sidecars.zip"),
    ("study v1.2", "study_v1.2_events_and_sidecars.zip"),  # a version is part of the name, no extension
    (".zip", "dataset_events_and_sidecars.zip"),
])
def test_the_download_is_named_from_the_dataset_name_without_its_extension(name, expected):
    assert zip_download_name(name) == expected


@pytest.mark.django_db
def test_the_download_of_an_uploaded_zip_drops_the_extension(client, user):
    project = make_project(user, name="ds116.zip")
    client.force_login(user)
    response = client.get(f"/datasets/{project.pk}/download/")
    assert response["Content-Disposition"] == 'attachment; filename="ds116_events_and_sidecars.zip"'


@pytest.mark.django_db
def test_a_level_run_page_leads_back_through_its_project_task_and_level(client, user):
    project = make_project(user, name="Shapes study")
    level = DatasetLevel.objects.get(column__task__project=project, value="spiral")
    session = services.create_level_sessions(project, [level], user=user)[0]
    client.force_login(user)
    page = client.get(f"/sessions/{session.pk}/").content.decode()
    crumbs = page.split('id="run-crumbs"', 1)[1].split("</p>", 1)[0]
    assert "History" not in crumbs
    for part in ("Datasets", "Shapes study", ">draw<", "shape = spiral", f"/levels/{level.pk}/"):
        assert part in crumbs, (part, crumbs)
    alone = AnnotationSession.objects.create(user=user, description="A beep.", schema_version="8.4.0")
    assert "History</a>" in client.get(f"/sessions/{alone.pk}/").content.decode()


@pytest.mark.django_db
def test_the_start_up_banner_prints_the_whole_address():
    out = StringIO()
    call_command("bootstrap_local", url="http://127.0.0.1:8080/", stdout=out)
    assert "http://127.0.0.1:8080/" in out.getvalue().splitlines()[-1]
    # make run passes its HOST and PORT, so PORT=8080 is what the banner says.
    dry = subprocess.run(["make", "-n", "run", "PORT=8080"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "bootstrap_local --url http://127.0.0.1:8080/" in dry.stdout
