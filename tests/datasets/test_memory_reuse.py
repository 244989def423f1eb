"""Memory is visible (issue 27): a level whose run starts from a reviewed annotation of another project says so and
links to it, on the level's page and on its run's; the project's owner can turn that reuse off."""

from __future__ import annotations

import asyncio

import pytest

from annotations.datasets import inventory_edits, services
from annotations.models import AnnotationSession, DatasetProject, SessionStatus
from annotations.runs.execution import execute_session
from annotations.runs.memory import examples_for
from tests.datasets.lab import lab_project, level

DESCRIPTION = "A green square flashes in the middle of the screen."
CORRECTED = "Sensory-event, Experimental-stimulus, Visual-presentation, (Green, Square)"


def _remembered(user, project: DatasetProject) -> AnnotationSession:
    """A corrected, accepted run of a level of *project* (the memory's source)."""
    source = level(project, "trial_type", "show_star")
    [session] = services.create_level_sessions(project, [source], user=user)
    AnnotationSession.objects.filter(pk=session.pk).update(
        description=DESCRIPTION, status=SessionStatus.SUCCEEDED, machine_annotation="Sensory-event",
        final_annotation=CORRECTED, is_valid=True, accept_count=1)
    return session


def _run_described(user, project: DatasetProject) -> AnnotationSession:
    target = level(project, "trial_type", "press")
    inventory_edits.set_level_description(target, DESCRIPTION)
    [session] = services.create_level_sessions(project, [target], user=user)
    asyncio.run(execute_session(str(session.pk), use_configured_llm=False))
    session.refresh_from_db()
    return session


@pytest.mark.django_db(transaction=True)
def test_a_reused_correction_from_another_project_is_named_on_the_level_and_its_run(client, user):
    earlier = lab_project(user, name="earlier")
    source = _remembered(user, earlier)
    later = lab_project(user, name="later")
    run = _run_described(user, later)
    assert run.final_annotation == CORRECTED and str(source.pk) in run.examples_used  # reused outright

    client.force_login(user)
    target = level(later, "trial_type", "press")
    page = client.get(f"/datasets/{later.pk}/levels/{target.pk}/").content.decode()
    assert 'id="level-memory"' in page and "Started from an earlier reviewed annotation" in page
    assert source.get_absolute_url() in page and "from project <em>earlier</em>" in page
    run_page = client.get(run.get_absolute_url()).content.decode()
    assert 'id="run-memory-reused"' in run_page and "from project <em>earlier</em>" in run_page


@pytest.mark.django_db(transaction=True)
def test_the_owner_turns_the_reuse_off_and_the_next_run_starts_afresh(client, user, other_user):
    earlier = lab_project(user, name="earlier")
    _remembered(user, earlier)
    later = lab_project(user, name="later")
    client.force_login(other_user)
    assert client.post(f"/datasets/{later.pk}/memory/", {"reuse": "off"}).status_code == 404  # not hers to see
    client.force_login(user)
    page = client.get(later.get_absolute_url()).content.decode()
    assert 'data-reuse="on"' in page and 'id="memory-toggle"' in page
    assert client.post(f"/datasets/{later.pk}/memory/", {"reuse": "maybe"}).status_code == 400
    response = client.post(f"/datasets/{later.pk}/memory/", {"reuse": "off"})
    assert response.status_code == 302 and response["Location"].endswith("#memory-setting")
    later.refresh_from_db()
    assert later.reuse_memory is False
    assert 'data-reuse="off"' in client.get(later.get_absolute_url()).content.decode()
    listed = {p["id"]: p["reuse_memory"] for p in client.get("/api/datasets/").json()["results"]}
    assert listed == {str(earlier.pk): True, str(later.pk): False}

    run = _run_described(user, later)
    assert run.examples_used == [] and run.final_annotation != CORRECTED
    assert examples_for(run) == []
    page = client.get(f"/datasets/{later.pk}/levels/{level(later, 'trial_type', 'press').pk}/").content.decode()
    assert 'id="level-memory"' not in page
    # Another project keeps its memory: the setting is per project.
    elsewhere = lab_project(user, name="elsewhere")
    assert _run_described(user, elsewhere).final_annotation == CORRECTED
