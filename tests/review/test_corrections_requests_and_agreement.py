"""Reviews a lab can trust: corrections that must validate, drafts, queue orders, review requests,
agreement from two reviews, the tag diff and the producer of each result (services, no HTTP)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.apps import apps
from django.utils import timezone

from annotations import access, corrections
from annotations.history.filters import filter_sessions
from annotations.models import AnnotationSession, LLMCallRecord, Revision, SessionStatus
from annotations.review import services as reviews
from annotations.review.diff import tag_diff, tokens
from annotations.review.queue import DEFAULT_ORDER, QUEUE_ORDERS, clean_order, queue_neighbours, review_queue
from annotations.runs.producer import OFFLINE_PRODUCER, producer_of
from tests.support.reviews import OTHER_VALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db

BROKEN = "Experiment-structure, (Onset, Blah"


@pytest.fixture
def second_reviewer(django_user_model, reviewer):
    other = django_user_model.objects.create_user("rev2", password="pw-rev2-12345")
    other.groups.add(*reviewer.groups.all())
    return other


def _aged(session: AnnotationSession, minutes: int) -> AnnotationSession:
    AnnotationSession.objects.filter(pk=session.pk).update(created_at=timezone.now() - dt.timedelta(minutes=minutes))
    session.refresh_from_db()
    return session


# --- corrections ----------------------------------------------------------------------------


def test_the_measured_broken_correction_is_refused_and_the_machine_annotation_stays(user, reviewer):
    session = make_session(user, is_faithful=True)
    with pytest.raises(corrections.CorrectionRefused) as info:
        corrections.correct_annotation(session, reviewer, BROKEN)
    assert info.value.issues and "draft" in info.value.message
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.is_valid, stored.status) == (VALID_HED, True, "succeeded")
    assert not Revision.objects.exists()
    # Neither the validity filter nor an export can see the broken string.
    invalid, _ = filter_sessions(AnnotationSession.objects.all(), {"valid": "invalid"})
    assert not invalid.exists()
    assert not AnnotationSession.objects.filter(final_annotation__contains="Blah").exists()


def test_a_draft_keeps_invalid_work_without_touching_the_final_annotation(user, reviewer):
    session = make_session(user)
    draft = corrections.correct_annotation(session, reviewer, BROKEN, comment="half done", draft=True)
    assert (draft.is_draft, draft.is_valid, draft.after) == (True, False, BROKEN)
    assert draft.issues
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.is_valid) == (VALID_HED, True)
    assert not reviews.is_corrected(stored)
    assert reviews.draft_of(session, reviewer) == draft
    # Saving the draft again edits it in place: one draft per reviewer and run.
    again = corrections.correct_annotation(session, reviewer, BROKEN + ")", draft=True)
    assert again.pk == draft.pk and Revision.objects.count() == 1


def test_a_draft_saved_for_real_becomes_the_correction(user, reviewer):
    session = make_session(user)
    draft = corrections.correct_annotation(session, reviewer, BROKEN, draft=True)
    saved = corrections.correct_annotation(session, reviewer, OTHER_VALID_HED)
    assert saved.pk == draft.pk and (saved.is_draft, saved.is_valid, saved.after) == (False, True, OTHER_VALID_HED)
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.is_valid) == (OTHER_VALID_HED, True)
    assert reviews.draft_of(session, reviewer) is None
    assert reviews.corrected_by(stored) == reviewer


def test_session_validity_follows_the_final_annotation(user, reviewer):
    session = make_session(user, annotation="Sensory-event, Blorp-invented-tag", is_valid=False,
                           status=SessionStatus.INVALID)
    corrections.correct_annotation(session, reviewer, VALID_HED)
    assert AnnotationSession.objects.get(pk=session.pk).is_valid is True
    valid, _ = filter_sessions(AnnotationSession.objects.all(), {"valid": "valid"})
    assert list(valid) == [session]


def test_migration_repairs_broken_corrections_and_fills_the_producer(user, reviewer):
    import importlib

    migration = importlib.import_module("annotations.migrations.0003_review_drafts_producer")
    broken = make_session(user)
    Revision.objects.create(session=broken, author=reviewer, before=VALID_HED, after=BROKEN, is_valid=False)
    AnnotationSession.objects.filter(pk=broken.pk).update(final_annotation=BROKEN, is_valid=False)
    by_model = make_session(user, description="by a model")
    LLMCallRecord.objects.create(session=by_model, agent="annotation", model="qwen3-8b")
    migration.repair_and_fill(apps, None)
    broken.refresh_from_db()
    by_model.refresh_from_db()
    assert (broken.final_annotation, broken.is_valid, broken.producer) == (VALID_HED, True, OFFLINE_PRODUCER)
    assert Revision.objects.get(session=broken).is_draft is True
    assert by_model.producer == "qwen3-8b"


# --- agreement, requests ----------------------------------------------------------------------


def test_agreement_needs_two_reviews(user, reviewer, second_reviewer):
    session = make_session(user)
    reviews.submit_review(session, reviewer, rating=4, verdict="accept")
    assert reviews.summary_of(session).agreement is None
    reviews.submit_review(session, second_reviewer, rating=2, verdict="reject")
    assert reviews.summary_of(session).agreement == pytest.approx(0.5)


def test_owner_requests_a_review_and_a_review_answers_it(user, other_user, reviewer):
    session = make_session(user)
    assert access.may_request_review(user, session) and not access.may_request_review(other_user, session)
    with pytest.raises(PermissionError):
        reviews.request_review(session, other_user)
    reviews.request_review(session, user)
    assert AnnotationSession.objects.get(pk=session.pk).review_requested_at is not None
    reviews.submit_review(session, reviewer, rating=5, verdict="accept")
    assert AnnotationSession.objects.get(pk=session.pk).review_requested_at is None
    running = make_session(user, status=SessionStatus.RUNNING, annotation="")
    with pytest.raises(corrections.ReviewError):
        reviews.request_review(running, user)


# --- queue orders -----------------------------------------------------------------------------


@pytest.fixture
def queue_runs(user):
    return {
        "old": _aged(make_session(user, description="old"), 50),
        "bad": _aged(make_session(user, description="bad", annotation="Sensory-event, Blorp-invented-tag",
                                  is_valid=False, status=SessionStatus.INVALID), 40),
        "unfaithful": _aged(make_session(user, description="unfaithful", is_faithful=False), 30),
        "new": _aged(make_session(user, description="new"), 10),
    }


def _names(order: str) -> list[str]:
    return [s.description for s in review_queue(AnnotationSession.objects.all(), order)]


def test_queue_orders(queue_runs, user):
    assert next(iter(QUEUE_ORDERS)) == DEFAULT_ORDER == "requested"
    assert _names("oldest") == ["old", "bad", "unfaithful", "new"]
    assert _names("newest") == ["new", "unfaithful", "bad", "old"]
    assert _names("problems") == ["bad", "unfaithful", "old", "new"]
    assert clean_order("nonsense") == DEFAULT_ORDER
    reviews.request_review(queue_runs["new"], user)
    assert _names("requested") == ["new", "old", "bad", "unfaithful"]


def test_second_review_order_keeps_a_run_after_its_first_review(queue_runs, reviewer, second_reviewer):
    assert _names("second") == []
    reviews.submit_review(queue_runs["bad"], reviewer, rating=2, verdict="reject")
    assert "bad" not in _names("oldest")
    assert _names("second") == ["bad"]
    reviews.submit_review(queue_runs["bad"], second_reviewer, rating=3, verdict="needs-fix")
    assert _names("second") == []


def test_neighbours_follow_the_chosen_order(queue_runs):
    everything = AnnotationSession.objects.all()
    previous, following = queue_neighbours(everything, queue_runs["bad"], "newest")
    assert (previous.description, following.description) == ("unfaithful", "old")
    # A run outside the queue leads to the queue's first run.
    outside = make_session(None, description="outside", status=SessionStatus.FAILED, annotation="")
    assert queue_neighbours(everything, outside, "problems")[1].description == "bad"


# --- diff and producer --------------------------------------------------------------------------


def test_tag_diff_marks_added_and_removed_tags():
    before = "Sensory-event, Visual-presentation, (Image, Face)"
    after = "Sensory-event, (Image, Face, Red), Duration/2 s"
    assert tokens(before) == ["Sensory-event", ",", "Visual-presentation", ",", "(", "Image", ",", "Face", ")"]
    parts = tag_diff(before, after)
    assert [p.text for p in parts if p.op != "removed"] == tokens(after)
    assert [p.text for p in parts if p.op != "added"] == tokens(before)
    assert all(p.op == "same" for p in tag_diff(before, before))


def test_producer_is_what_answered_the_annotation_agent(user):
    offline = make_session(user)
    assert producer_of(offline.pk) == OFFLINE_PRODUCER
    by_model = make_session(user)
    LLMCallRecord.objects.create(session=by_model, agent="evaluation", model="judge-model")
    LLMCallRecord.objects.create(session=by_model, agent="annotation", model="router/auto")
    LLMCallRecord.objects.create(session=by_model, agent="annotation", model="qwen3-8b")
    assert producer_of(by_model.pk) == "qwen3-8b"
