"""Whose corrections the portal's memory hands on (issue 35): a plain lab user's correction of her own level serves
her alone; across users memory holds only what a reviewer stood by, and says so."""

from __future__ import annotations

import asyncio

import pytest

from annotations.corrections import correct_annotation
from annotations.datasets import inventory_edits, services
from annotations.models import AnnotationSession, DatasetProject, Revision
from annotations.review import services as reviews
from annotations.runs.execution import execute_session
from annotations.runs.memory import examples_for
from annotations.runs.services import build_options, create_session
from tests.datasets.lab import lab_project, level

pytestmark = pytest.mark.django_db(transaction=True)

DESCRIPTION = "A green square flashes in the middle of the screen."
# The lab's own free text: nobody but her may ever receive it.
PRIVATE = ("Sensory-event, Experimental-stimulus, Visual-presentation, (Green, Square), "
           "Description/Protocol zeta note of lab ann")
REVIEWED = "Sensory-event, Experimental-stimulus, Visual-presentation, (Green, Square, Label/Reviewed-check)"


def _level_run(user, project: DatasetProject, value: str) -> AnnotationSession:
    """Annotate *project*'s level *value* of ``trial_type``, described as DESCRIPTION, offline."""
    target = level(project, "trial_type", value)
    inventory_edits.set_level_description(target, DESCRIPTION)
    [session] = services.create_level_sessions(project, [target], user=user)
    done = asyncio.run(execute_session(str(session.pk), use_configured_llm=False))
    assert done is not None and done.description == DESCRIPTION
    return done


def _free_run(user) -> AnnotationSession:
    session = create_session(user=user, description=DESCRIPTION, options=build_options({}))
    done = asyncio.run(execute_session(session.pk, use_configured_llm=False))
    assert done is not None
    return done


def _owner_corrects(client, user, project: DatasetProject, session: AnnotationSession, hed: str) -> None:
    """The project's owner (no reviewer) corrects her level on its page, as the red team did."""
    client.force_login(user)
    url = f"/datasets/{project.pk}/levels/{session.dataset_level_id}/correct/"
    assert client.post(url, {"hed": hed}).status_code == 302
    assert Revision.objects.filter(session=session, after=hed, is_draft=False).exists()


def test_a_plain_users_level_correction_never_reaches_another_user(client, user, other_user):
    mine = lab_project(user, name="mine")
    source = _level_run(user, mine, "show_star")
    _owner_corrects(client, user, mine, source, PRIVATE)

    theirs = _free_run(other_user)
    assert str(source.pk) not in theirs.examples_used and "Protocol zeta" not in theirs.final_annotation
    their_project = lab_project(other_user, name="theirs")
    level_run = _level_run(other_user, their_project, "show_star")
    assert str(source.pk) not in level_run.examples_used and "Protocol zeta" not in level_run.final_annotation
    assert examples_for(level_run) == []


def test_the_owners_own_project_gets_her_correction_and_says_it_is_hers(client, user):
    mine = lab_project(user, name="mine")
    source = _level_run(user, mine, "show_star")
    _owner_corrects(client, user, mine, source, PRIVATE)

    again = _level_run(user, mine, "press")
    assert again.final_annotation == PRIVATE and again.examples_used == [str(source.pk)]
    assert any("your own correction" in note for note in again.notes)
    [example] = examples_for(again)
    assert example.origin == "own"
    page = client.get(again.get_absolute_url()).content.decode()
    assert "Started from your own earlier correction" in page and source.get_absolute_url() in page


def test_a_reviewers_correction_is_shared_and_names_its_source(client, user, other_user, reviewer):
    mine = lab_project(user, name="mine")
    source = _level_run(user, mine, "show_star")
    _owner_corrects(client, user, mine, source, PRIVATE)
    correct_annotation(source, reviewer, REVIEWED)  # a reviewer stands by her own wording

    theirs = _free_run(other_user)
    assert theirs.final_annotation == REVIEWED and theirs.examples_used == [str(source.pk)]
    assert any("accepted by a reviewer" in note for note in theirs.notes)
    [example] = examples_for(theirs)
    assert example.origin == "reviewed" and example.source_id == str(source.pk)
    client.force_login(other_user)
    page = client.get(theirs.get_absolute_url()).content.decode()
    assert "a reviewed run you cannot open" in page and "Protocol zeta" not in page


def test_an_owners_correction_after_a_reviewers_is_hers_alone(client, user, other_user, reviewer):
    """The reviewer's earlier correction does not vouch for the text the owner wrote over it."""
    mine = lab_project(user, name="mine")
    source = _level_run(user, mine, "show_star")
    correct_annotation(source, reviewer, REVIEWED)
    reviews.submit_review(source, reviewer, rating=5, verdict="accept")
    _owner_corrects(client, user, mine, source, PRIVATE)

    theirs = _free_run(other_user)
    assert "Protocol zeta" not in theirs.final_annotation and str(source.pk) not in theirs.examples_used


def test_a_reviewer_accepting_the_owners_correction_shares_it(client, user, other_user, reviewer):
    mine = lab_project(user, name="mine")
    source = _level_run(user, mine, "show_star")
    _owner_corrects(client, user, mine, source, REVIEWED)
    reviews.submit_review(source, reviewer, rating=5, verdict="accept")  # read after the correction: stands by it

    theirs = _free_run(other_user)
    assert theirs.final_annotation == REVIEWED and theirs.examples_used == [str(source.pk)]


def test_a_review_by_a_user_who_lost_the_permission_still_counts_as_given(client, user, other_user, reviewer):
    """Whether a correction is a reviewer's is decided when it is written (through ``has_perm``), not re-read."""
    mine = lab_project(user, name="mine")
    source = _level_run(user, mine, "show_star")
    correct_annotation(source, reviewer, REVIEWED)
    reviewer.groups.clear()
    assert Revision.objects.get(session=source, after=REVIEWED).by_reviewer is True
    assert _free_run(other_user).final_annotation == REVIEWED


def test_the_migration_marks_the_corrections_reviewers_wrote(user, other_user, reviewer, staff, django_user_model):
    """Migration 0019 reads existing corrections' authors as has_perm does: staff, the group, a permission alone."""
    import importlib

    from django.apps import apps
    from django.contrib.auth.models import Permission

    migration = importlib.import_module("annotations.migrations.0019_revision_by_reviewer")
    granted = django_user_model.objects.create_user("granted", password="pw-granted-12345")
    granted.user_permissions.add(Permission.objects.get(codename="review_session"))
    retired = django_user_model.objects.create_user("retired", password="pw-retired-12345", is_active=False)
    retired.groups.set(reviewer.groups.all())
    session = _free_run(user)
    authors = {"ann": user, "bob": other_user, "rev": reviewer, "staff": staff, "granted": granted, "retired": retired}
    for name, author in authors.items():
        Revision.objects.create(session=session, author=author, after=f"Sensory-event, Label/{name}", is_valid=True)
    migration.mark_reviewers(apps, None)
    marked = {r.author.username: r.by_reviewer for r in Revision.objects.filter(session=session)}
    assert marked == {"ann": False, "bob": False, "rev": True, "staff": True, "granted": True, "retired": False}
