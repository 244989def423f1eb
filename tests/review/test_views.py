"""The review panel's endpoints, the review queue and tag suggestions, through HTTP."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations.models import AnnotationSession, Review, Revision, SessionStatus
from tests.support.reviews import INVALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def login(client, user):
    client.force_login(user)
    return client


def test_session_page_shows_the_panel_with_forms_for_reviewers(client, user, reviewer):
    session = make_session(user)
    page = login(client, reviewer).get(session.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="review-panel"' in html and 'id="review-form"' in html and 'id="correction-form"' in html
    assert reverse("annotations:validate-check") in html  # the editor validates as you type


def test_owner_sees_reviews_read_only_and_can_add_the_run_to_a_dataset(client, user, reviewer):
    session = make_session(user)
    client.force_login(reviewer)
    client.post(reverse("annotations:review-submit", args=[session.pk]),
                {"rating": 4, "verdict": "accept", "comment": "looks right"}, **HTMX)
    html = login(client, user).get(session.get_absolute_url()).content.decode()
    assert "looks right" in html and 'data-reviewer="rev"' in html
    assert 'id="review-form"' not in html and 'id="correction-form"' not in html
    assert 'id="dataset-level"' in html and "Upload a dataset" in html  # the shortcut, once there is one


def test_reviewer_rates_without_reload(client, user, reviewer):
    session = make_session(user)
    response = login(client, reviewer).post(reverse("annotations:review-submit", args=[session.pk]),
                                            {"rating": 4, "verdict": "needs-fix", "comment": "missing colour"},
                                            **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<section id=\"review-panel\"")  # a fragment, not a page
    assert "<html" not in html
    assert "4.0 / 5" in html and "missing colour" in html
    assert json.loads(response["HX-Trigger"]) == {"review-changed": {}}  # django-htmx's trigger_client_event form
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.review_count, stored.needs_fix_count, stored.mean_rating) == (1, 1, 4.0)


def test_bad_rating_answers_400_with_the_message(client, user, reviewer):
    session = make_session(user)
    response = login(client, reviewer).post(reverse("annotations:review-submit", args=[session.pk]),
                                            {"rating": 9, "verdict": "accept"}, **HTMX)
    assert response.status_code == 400
    assert "field-error" in response.content.decode()
    assert not Review.objects.exists()


def test_annotator_cannot_post_a_review_or_correction(client, user):
    session = make_session(user)
    login(client, user)
    assert client.post(reverse("annotations:review-submit", args=[session.pk]),
                       {"rating": 5, "verdict": "accept"}, **HTMX).status_code == 403
    assert client.post(reverse("annotations:review-correct", args=[session.pk]),
                       {"hed": INVALID_HED}, **HTMX).status_code == 403
    assert not Review.objects.exists() and not Revision.objects.exists()


def test_other_users_session_is_404_and_anonymous_is_sent_to_login(client, user, other_user):
    session = make_session(user)
    url = reverse("annotations:review-dataset-level", args=[session.pk])
    anonymous = client.post(url, {"level": 1})
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    assert login(client, other_user).post(url, {"level": 1}).status_code == 404


def test_correction_from_the_editor(client, user, reviewer):
    session = make_session(user, annotation=INVALID_HED, is_valid=False, status=SessionStatus.INVALID)
    response = login(client, reviewer).post(reverse("annotations:review-correct", args=[session.pk]),
                                            {"hed": VALID_HED, "comment": "real tags"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="revision-list"' in html and "real tags" in html
    assert 'id="final-annotation"' in html and 'hx-swap-oob="true"' in html  # the page's annotation card
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.machine_annotation) == (VALID_HED, INVALID_HED)


def test_plain_form_post_redirects_back(client, user, reviewer):
    session = make_session(user)
    response = login(client, reviewer).post(reverse("annotations:review-submit", args=[session.pk]),
                                            {"rating": 3, "verdict": "accept"})
    assert response.status_code == 302 and response["Location"] == session.get_absolute_url()


def test_tag_suggestions_fragment(client, user):
    login(client, user)
    response = client.get(reverse("annotations:review-tags"), {"q": "Sensory-ev", "schema_version": "8.4.0"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-tag="Sensory-event"' in html and "tag-suggestion__desc" in html
    # Without q, the word at the end of the text is completed.
    by_hed = client.get(reverse("annotations:review-tags"), {"hed": "Sensory-event, (Visual-pres"})
    assert 'data-tag="Visual-presentation"' in by_hed.content.decode()
    assert client.get(reverse("annotations:review-tags"), {"q": "x", "schema_version": "0.0.1"}).status_code == 400


def test_review_queue_for_reviewers_only_oldest_first(client, user, reviewer):
    now = timezone.now()
    young = make_session(user, description="young run")
    old = make_session(user, description="old run")
    AnnotationSession.objects.filter(pk=old.pk).update(created_at=now - dt.timedelta(hours=2))
    AnnotationSession.objects.filter(pk=young.pk).update(created_at=now - dt.timedelta(hours=1))
    make_session(user, description="still running", status=SessionStatus.RUNNING, annotation="")

    assert login(client, user).get(reverse("annotations:review-queue")).status_code == 403
    html = login(client, reviewer).get(reverse("annotations:review-queue")).content.decode()
    assert html.index("old run") < html.index("young run")
    assert "still running" not in html
    assert "review.js" in html

    # On the older run's page the panel links to the next run in the queue.
    panel = client.get(old.get_absolute_url() + "?queue=oldest").content.decode()
    assert f'href="{young.get_absolute_url()}?queue=oldest" rel="next" data-review-next' in panel


def test_panel_fragment_for_refreshing(client, user, other_user):
    session = make_session(user)
    url = reverse("annotations:review-panel", args=[session.pk])
    html = login(client, user).get(url).content.decode()
    assert html.lstrip().startswith('<section id="review-panel"') and 'data-finished="true"' in html
    assert login(client, other_user).get(url).status_code == 404
