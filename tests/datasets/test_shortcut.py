"""A single run added to a dataset project as a level's annotation: conflicts are refused, never dropped."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.datasets import services
from annotations.datasets.selectors import level_states
from annotations.models import AnnotationSession, DatasetLevel, Review, SessionStatus
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
    assert 'id="dataset-level-form"' in html and "tiny / faces / event_type = press" in html
    level = DatasetLevel.objects.get(value="press")
    response = client.post(reverse("annotations:review-dataset-level", args=[run.pk]), {"level": level.pk}, **HTMX)
    assert response.status_code == 200 and "Added to tiny" in response.content.decode()
    assert AnnotationSession.objects.get(pk=run.pk).dataset_level_id == level.pk
    # Someone else's level is not offered and cannot be posted.
    theirs = make_session(other_user)
    client.force_login(other_user)
    assert client.post(reverse("annotations:review-dataset-level", args=[theirs.pk]),
                       {"level": level.pk}, **HTMX).status_code == 400
