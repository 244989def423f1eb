"""Review services: aggregates, permissions, corrections, BIDS assignment, queue order."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from annotations import corrections
from annotations.models import AnnotationSession, Review, Revision, SessionStatus
from annotations.review import services as reviews
from annotations.review.queue import queue_neighbours, review_queue
from tests.support.reviews import INVALID_HED, OTHER_VALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db


@pytest.fixture
def second_reviewer(django_user_model, reviewer):
    other = django_user_model.objects.create_user("rev2", password="pw-rev2-12345")
    other.groups.add(*reviewer.groups.all())
    return other


def test_review_updates_stored_summary(user, reviewer, second_reviewer, staff):
    session = make_session(user)
    reviews.submit_review(session, reviewer, rating=4, verdict="accept", comment="good")
    reviews.submit_review(session, second_reviewer, rating=2, verdict="needs-fix")
    reviews.submit_review(session, staff, rating=3, verdict="accept")

    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.review_count, stored.accept_count, stored.needs_fix_count, stored.reject_count) == (3, 2, 1, 0)
    assert stored.mean_rating == pytest.approx(3.0)
    summary = reviews.summary_of(stored)
    assert summary.agreement == pytest.approx(2 / 3)
    assert summary.majority_verdict == "accept"


def test_second_review_by_same_reviewer_replaces_the_first(user, reviewer):
    session = make_session(user)
    _, created = reviews.submit_review(session, reviewer, rating=1, verdict="reject")
    assert created
    _, created = reviews.submit_review(session, reviewer, rating=5, verdict="accept")
    assert not created
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert Review.objects.filter(session=session).count() == 1
    assert (stored.review_count, stored.mean_rating, stored.accept_count, stored.reject_count) == (1, 5.0, 1, 0)


def test_tied_verdicts_have_no_majority(user, reviewer, second_reviewer):
    session = make_session(user)
    reviews.submit_review(session, reviewer, rating=4, verdict="accept")
    reviews.submit_review(session, second_reviewer, rating=2, verdict="reject")
    summary = reviews.summary_of(AnnotationSession.objects.get(pk=session.pk))
    assert summary.majority_verdict is None
    assert summary.agreement == pytest.approx(0.5)


@pytest.mark.parametrize(("rating", "verdict", "field"), [(9, "accept", "rating"), (0, "accept", "rating"),
                                                          ("x", "accept", "rating"), (3, "maybe", "verdict")])
def test_bad_review_input_names_the_field(user, reviewer, rating, verdict, field):
    session = make_session(user)
    with pytest.raises(corrections.ReviewError) as info:
        reviews.submit_review(session, reviewer, rating=rating, verdict=verdict)
    assert info.value.field == field
    assert not Review.objects.exists()


def test_only_reviewers_review(user):
    session = make_session(user)
    with pytest.raises(PermissionError):
        reviews.submit_review(session, user, rating=5, verdict="accept")


def test_unfinished_session_cannot_be_reviewed(user, reviewer):
    session = make_session(user, status=SessionStatus.RUNNING, annotation="", is_valid=None)
    with pytest.raises(corrections.ReviewError):
        reviews.submit_review(session, reviewer, rating=3, verdict="accept")


def test_correction_is_a_revision_and_the_final_annotation(user, reviewer):
    session = make_session(user, annotation=INVALID_HED, is_valid=False, status=SessionStatus.INVALID)
    revision = corrections.correct_annotation(session, reviewer, f"  {VALID_HED} ", comment="fixed the tag")

    stored = AnnotationSession.objects.get(pk=session.pk)
    assert stored.final_annotation == VALID_HED
    assert stored.machine_annotation == INVALID_HED
    assert stored.is_valid is True
    assert (revision.author, revision.before, revision.after, revision.is_valid) == (
        reviewer, INVALID_HED, VALID_HED, True)
    assert revision.comment == "fixed the tag"
    assert revision.created_at is not None


def test_invalid_correction_is_refused_with_its_issues(user, reviewer):
    session = make_session(user)
    with pytest.raises(corrections.CorrectionRefused) as info:
        corrections.correct_annotation(session, reviewer, INVALID_HED)
    assert info.value.field == "hed"
    assert any(i["code"] == "TAG_INVALID" and i["severity"] == "error" for i in info.value.issues)
    assert not Revision.objects.exists()
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.is_valid) == (VALID_HED, True)


def test_correction_chain_records_each_before(user, reviewer):
    session = make_session(user)
    corrections.correct_annotation(session, reviewer, OTHER_VALID_HED)
    corrections.correct_annotation(session, reviewer, VALID_HED + ", Red")
    befores = list(Revision.objects.filter(session=session).order_by("created_at", "id").values_list(
        "before", flat=True))
    assert befores == [VALID_HED, OTHER_VALID_HED]


@pytest.mark.parametrize("hed", ["", "   ", VALID_HED])
def test_empty_or_unchanged_correction_is_refused(user, reviewer, hed):
    session = make_session(user)
    with pytest.raises(corrections.ReviewError) as info:
        corrections.correct_annotation(session, reviewer, hed)
    assert info.value.field == "hed"
    assert not Revision.objects.exists()


def test_annotator_cannot_correct_even_their_own(user):
    session = make_session(user)
    with pytest.raises(PermissionError):
        corrections.correct_annotation(session, user, OTHER_VALID_HED)


def test_queue_has_unreviewed_finished_sessions_oldest_first(user, reviewer):
    now = timezone.now()
    newest = make_session(user, description="newest")
    oldest = make_session(user, description="oldest", status=SessionStatus.INVALID, is_valid=False)
    middle = make_session(user, description="middle")
    reviewed = make_session(user, description="reviewed")
    make_session(user, description="running", status=SessionStatus.RUNNING, annotation="")
    make_session(user, description="failed", status=SessionStatus.FAILED, annotation="")
    for session, age in ((newest, 1), (oldest, 30), (middle, 10), (reviewed, 20)):
        AnnotationSession.objects.filter(pk=session.pk).update(created_at=now - dt.timedelta(minutes=age))
    reviews.submit_review(reviewed, reviewer, rating=3, verdict="accept")

    queue = review_queue(AnnotationSession.objects.all(), "oldest")
    assert [s.description for s in queue] == ["oldest", "middle", "newest"]
    middle.refresh_from_db()
    previous, following = queue_neighbours(AnnotationSession.objects.all(), middle, "oldest")
    assert (previous.description, following.description) == ("oldest", "newest")


def test_tag_suggestions_match_prefix_then_substring():
    names = [name for name, _, _ in reviews.suggest_tags("8.4.0", "Sensory-ev")]
    assert names[0] == "Sensory-event"
    found = reviews.suggest_tags("8.4.0", "Vis")
    assert any(name == "Visual-presentation" and description for name, description, _ in found)
    assert reviews.current_token("Sensory-event, (Red, Cir") == "Cir"
    assert reviews.suggest_tags("8.4.0", "Durat")[0][2] is True  # Duration takes a value
