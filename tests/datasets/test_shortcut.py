"""A single run added to a dataset project as a level's annotation: conflicts are refused, never dropped."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotations.datasets import services
from annotations.datasets.placement import level_choices_for
from annotations.datasets.selectors import level_states
from annotations.models import AnnotationSession, DatasetLevel, Review, SessionStatus
from annotations.review.forms import DatasetLevelForm
from tests.support.reviews import make_session

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def project(user, small_files):
    return services.import_dataset(user=user, files=small_files, name="tiny")


def test_a_valid_run_becomes_the_levels_annotation(user, project):
    level = DatasetLevel.objects.get(value="press")
    run = make_session(user, annotation="Agent-action, Participant-response")
    services.add_session_to_level(run, level)
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.status, state.session_id) == ("valid", run.pk)


def test_a_conflicting_accepted_annotation_is_refused(user, reviewer, project):
    level = DatasetLevel.objects.get(value="press")
    accepted = services.create_level_sessions(project, [level], user=user)[0]
    AnnotationSession.objects.filter(pk=accepted.pk).update(
        status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation="Agent-action",
        machine_annotation="Agent-action")
    Review.objects.create(session=accepted, reviewer=reviewer, rating=5, verdict="accept")
    other = make_session(user, annotation="Agent-action, Participant-response")
    with pytest.raises(services.DatasetRequestError, match="conflict"):
        services.add_session_to_level(other, level)
    assert AnnotationSession.objects.get(pk=other.pk).dataset_level_id is None
    same = make_session(user, annotation="Agent-action")  # agrees with the accepted one: no conflict
    services.add_session_to_level(same, level)


def test_an_invalid_or_unfinished_run_is_refused(user, project):
    level = DatasetLevel.objects.get(value="press")
    broken = make_session(user, annotation="Blorp", is_valid=False, status=SessionStatus.INVALID)
    with pytest.raises(services.DatasetRequestError, match="valid annotation"):
        services.add_session_to_level(broken, level)


def test_the_review_panel_offers_the_users_levels(client, user, other_user, project):
    run = make_session(user)
    client.force_login(user)
    html = client.get(run.get_absolute_url()).content.decode()
    assert 'id="dataset-level-form"' in html and '<optgroup label="tiny / faces / event_type">' in html
    level = DatasetLevel.objects.get(value="press")
    response = client.post(reverse("annotations:review-dataset-level", args=[run.pk]), {"level": level.pk}, **HTMX)
    assert response.status_code == 200 and "Added to tiny" in response.content.decode()
    assert AnnotationSession.objects.get(pk=run.pk).dataset_level_id == level.pk
    # Someone else's level is not offered and cannot be posted.
    theirs = make_session(other_user)
    client.force_login(other_user)
    assert client.post(reverse("annotations:review-dataset-level", args=[theirs.pk]),
                       {"level": level.pk}, **HTMX).status_code == 400


def test_the_dropdown_has_one_id_per_element_and_groups_the_users_own_levels(client, user, reviewer, small_files,
                                                                              project):
    services.import_dataset(user=reviewer, files=small_files, name="reviewed")
    services.import_dataset(user=user, files=small_files, name="newer")
    run = make_session(user)
    client.force_login(user)
    html = client.get(run.get_absolute_url()).content.decode()
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert '<label for="place-level">' in html and 'id="place-level"' in html
    groups = re.findall(r'<optgroup label="([^"]+)">', html)
    assert groups == ["newer / faces / event_type", "newer / faces / hand", "tiny / faces / event_type",
                      "tiny / faces / hand"]  # newest project first; only the user's own
    assert "reviewed /" not in html
    # A reviewer sees every project's page, but is offered only their own levels.
    client.force_login(reviewer)
    assert re.findall(r'<optgroup label="([^"]+)">', client.get(run.get_absolute_url()).content.decode()) == [
        "reviewed / faces / event_type", "reviewed / faces / hand"]


def test_the_dropdown_is_bounded_in_levels_and_queries(user, small_files, django_assert_num_queries):
    for n in range(3):
        services.import_dataset(user=user, files=small_files, name=f"p{n}")
    with django_assert_num_queries(1):
        found = level_choices_for(user, limit=7)
    assert found.truncated and sum(len(options) for _, options in found.groups) == 7
    with django_assert_num_queries(1):
        assert not level_choices_for(user).truncated
    form = DatasetLevelForm(user=user)
    assert form.has_choices and not form.fields["level"].help_text
