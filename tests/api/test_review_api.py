"""/api/sessions/<id>/reviews/ and /revisions/: reviewers write, everyone who sees the session reads."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import AnnotationSession, Review, Revision, SessionStatus
from tests.support.reviews import INVALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db


def reviews_url(session):
    return reverse("api:session-reviews", args=[session.pk])


def revisions_url(session):
    return reverse("api:session-revisions", args=[session.pk])


def test_reviewer_posts_a_review(user, reviewer, client_for):
    session = make_session(user)
    response = client_for(reviewer).post(reviews_url(session), {"rating": 4, "verdict": "needs-fix",
                                                                "comment": "add the colour"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["reviewer"] == "rev" and response.json()["verdict"] == "needs-fix"
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.review_count, stored.mean_rating, stored.needs_fix_count) == (1, 4.0, 1)
    again = client_for(reviewer).post(reviews_url(session), {"rating": 5, "verdict": "accept"}, format="json")
    assert again.status_code == 200 and Review.objects.count() == 1


def test_owner_reads_reviews_but_cannot_post(user, reviewer, client_for):
    session = make_session(user)
    client_for(reviewer).post(reviews_url(session), {"rating": 3, "verdict": "accept"}, format="json")
    owner = client_for(user)
    listed = owner.get(reviews_url(session))
    assert listed.status_code == 200 and [r["rating"] for r in listed.json()] == [3]
    refused = owner.post(reviews_url(session), {"rating": 5, "verdict": "accept"}, format="json")
    assert refused.status_code == 403
    assert Review.objects.count() == 1


def test_anonymous_and_other_users(user, other_user, client_for):
    session = make_session(user)
    assert client_for().get(reviews_url(session)).status_code == 401
    assert client_for().post(reviews_url(session), {"rating": 3, "verdict": "accept"},
                             format="json").status_code == 401
    assert client_for(other_user).get(reviews_url(session)).status_code == 404
    assert client_for(other_user).get(revisions_url(session)).status_code == 404


def test_missing_session_is_404_for_reviewers(reviewer, client_for):
    missing = "00000000-0000-0000-0000-000000000000"
    url = reverse("api:session-reviews", args=[missing])
    assert client_for(reviewer).post(url, {"rating": 3, "verdict": "accept"}, format="json").status_code == 404


@pytest.mark.parametrize(("payload", "field"), [
    ({"rating": 9, "verdict": "accept"}, "rating"),
    ({"rating": 0, "verdict": "accept"}, "rating"),
    ({"rating": "five", "verdict": "accept"}, "rating"),
    ({"verdict": "accept"}, "rating"),
    ({"rating": 3, "verdict": "great"}, "verdict"),
    ({"rating": 3}, "verdict"),
])
def test_bad_review_payload_names_the_field(user, reviewer, payload, field, client_for):
    session = make_session(user)
    response = client_for(reviewer).post(reviews_url(session), payload, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Review.objects.exists()


def test_review_of_a_running_session_is_400(user, reviewer, client_for):
    session = make_session(user, status=SessionStatus.RUNNING, annotation="", is_valid=None)
    response = client_for(reviewer).post(reviews_url(session), {"rating": 3, "verdict": "accept"}, format="json")
    assert response.status_code == 400 and "session" in response.json()


def test_reviewer_corrects_through_the_api(user, reviewer, client_for):
    session = make_session(user, annotation=INVALID_HED, is_valid=False, status=SessionStatus.INVALID)
    response = client_for(reviewer).post(revisions_url(session), {"hed": VALID_HED, "comment": "fixed"},
                                         format="json")
    assert response.status_code == 201, response.content
    assert response.json()["is_valid"] is True and response.json()["before"] == INVALID_HED
    detail = client_for(user).get(reverse("api:session-detail", args=[session.pk])).json()
    assert detail["final_annotation"] == VALID_HED and detail["machine_annotation"] == INVALID_HED
    assert detail["corrected"] is True and detail["revisions"][0]["author"] == "rev"


def test_annotator_cannot_correct_and_empty_correction_is_400(user, reviewer, client_for):
    session = make_session(user)
    assert client_for(user).post(revisions_url(session), {"hed": VALID_HED}, format="json").status_code == 403
    bad = client_for(reviewer).post(revisions_url(session), {"hed": ""}, format="json")
    assert bad.status_code == 400 and "hed" in bad.json()
    assert not Revision.objects.exists()
