"""The review flow through HTTP: refused corrections and drafts, badges of the final annotation,
Save & next in the queue's order, queue orders, review requests, the annotation tree and the producer."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations import corrections
from annotations.models import AnnotationSession, Revision, SessionStatus
from annotations.review import services as reviews
from tests.support.reviews import OTHER_VALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
BROKEN = "Experiment-structure, (Onset, Blah"


def login(client, user):
    client.force_login(user)
    return client


def _aged(session: AnnotationSession, minutes: int) -> AnnotationSession:
    AnnotationSession.objects.filter(pk=session.pk).update(created_at=timezone.now() - dt.timedelta(minutes=minutes))
    return session


def _correct(client, session, hed, **extra):
    return client.post(reverse("annotations:review-correct", args=[session.pk]), {"hed": hed, **extra}, **HTMX)


# --- corrections and badges -------------------------------------------------------------------


def test_invalid_correction_is_refused_with_its_issues(client, user, reviewer):
    session = make_session(user, is_faithful=True)
    response = _correct(login(client, reviewer), session, BROKEN)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="refused-issues"' in html and "does not validate" in html and 'id="correction-draft"' in html
    assert BROKEN in html  # the reviewer's text stays in the editor
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.is_valid) == (VALID_HED, True)


def test_refusal_without_htmx_is_a_message_on_the_run_page(client, user, reviewer):
    session = make_session(user)
    response = login(client, reviewer).post(reverse("annotations:review-correct", args=[session.pk]),
                                            {"hed": BROKEN}, follow=True)
    assert "does not validate" in response.content.decode()
    assert AnnotationSession.objects.get(pk=session.pk).final_annotation == VALID_HED


def test_save_as_draft_then_edit_and_save_for_real(client, user, reviewer):
    session = make_session(user)
    login(client, reviewer)
    response = _correct(client, session, BROKEN, draft="1")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Draft saved" in html and 'data-draft="true"' in html and "draft, not applied" in html
    assert 'hx-swap-oob' not in html  # the annotation card is untouched
    page = client.get(session.get_absolute_url()).content.decode()
    assert 'id="draft-notice"' in page and f">{BROKEN}</textarea>" in page
    assert AnnotationSession.objects.get(pk=session.pk).final_annotation == VALID_HED
    saved = _correct(client, session, OTHER_VALID_HED)
    assert saved.status_code == 200 and 'data-draft="false"' in saved.content.decode()
    assert Revision.objects.get().is_draft is False
    assert AnnotationSession.objects.get(pk=session.pk).final_annotation == OTHER_VALID_HED


def test_badges_describe_the_final_annotation(client, user, reviewer):
    session = make_session(user, is_faithful=True, is_complete=True, producer="offline annotator")
    page = login(client, user).get(session.get_absolute_url()).content.decode()
    assert "Faithful" in page and "Human-corrected" not in page
    assert re.search(r"Produced by <strong>offline annotator</strong>", page)
    corrections.correct_annotation(session, reviewer, OTHER_VALID_HED)
    page = client.get(session.get_absolute_url()).content.decode()
    card = page[page.index('id="final-annotation"'):page.index('class="run-side"')]
    assert "Human-corrected" in card and "check--ok\">Valid" in card
    assert ">Faithful<" not in card and ">Complete<" not in card
    assert "corrected by <strong>rev</strong>" in card


def test_exports_and_api_carry_only_the_valid_final_annotation_and_the_producer(client, user, reviewer):
    session = make_session(user, producer="qwen3-8b")
    login(client, reviewer)
    assert _correct(client, session, BROKEN).status_code == 400
    _correct(client, session, BROKEN, draft="1")
    text = b"".join(client.get(reverse("annotations:export"), {"format": "csv"}).streaming_content).decode()
    (row,) = list(csv.DictReader(io.StringIO(text)))
    assert (row["annotation"], row["valid"], row["producer"]) == (VALID_HED, "true", "qwen3-8b")
    lines = b"".join(client.get(reverse("annotations:export"), {"format": "jsonl"}).streaming_content)
    record = json.loads(lines.decode().splitlines()[0])
    assert record["producer"] == "qwen3-8b" and record["annotation"] == VALID_HED
    assert record["revisions"][0]["is_draft"] is True
    body = client.get(f"/api/sessions/{session.pk}/").json()
    assert body["producer"] == "qwen3-8b" and body["final_annotation"] == VALID_HED


# --- review flow --------------------------------------------------------------------------------


@pytest.fixture
def three_runs(user):
    return [_aged(make_session(user, description=f"run {n}"), 30 - n) for n in range(3)]


def test_save_and_next_goes_to_the_next_run_in_the_queue_order(client, user, reviewer, three_runs):
    first, second, third = three_runs
    login(client, reviewer)
    url = reverse("annotations:review-submit", args=[second.pk])
    response = client.post(url, {"rating": 4, "verdict": "accept", "next": "1", "queue": "oldest"}, **HTMX)
    assert response.status_code == 204 and response["HX-Redirect"] == f"{third.get_absolute_url()}?queue=oldest"
    # Newest first, the run after the third is the first (the second has left the queue).
    response = client.post(reverse("annotations:review-submit", args=[third.pk]),
                           {"rating": 3, "verdict": "needs-fix", "next": "1", "queue": "newest"})
    assert response.status_code == 302 and response["Location"] == f"{first.get_absolute_url()}?queue=newest"
    last = client.post(reverse("annotations:review-submit", args=[first.pk]),
                       {"rating": 5, "verdict": "accept", "next": "1", "queue": "oldest"}, **HTMX)
    assert last["HX-Redirect"].startswith(reverse("annotations:review-queue")) and "done=1" in last["HX-Redirect"]


def test_bad_review_with_next_stays_on_the_panel(client, user, reviewer, three_runs):
    response = login(client, reviewer).post(reverse("annotations:review-submit", args=[three_runs[0].pk]),
                                            {"rating": 9, "verdict": "accept", "next": "1"}, **HTMX)
    assert response.status_code == 400 and "HX-Redirect" not in response


def test_run_page_has_the_side_panel_keys_and_save_and_next(client, user, reviewer, three_runs):
    html = login(client, reviewer).get(three_runs[0].get_absolute_url()).content.decode()
    assert 'class="run-layout"' in html and 'class="run-side"' in html
    assert 'id="review-save-next"' in html and 'name="next"' in html
    assert "<kbd>a</kbd> accept" in html and "<kbd>1</kbd>\u2013<kbd>5</kbd>" in html


def test_queue_order_choices(client, user, reviewer, three_runs):
    login(client, reviewer)
    AnnotationSession.objects.filter(pk=three_runs[2].pk).update(is_valid=False, status=SessionStatus.INVALID)
    html = client.get(reverse("annotations:review-queue")).content.decode()
    for order in ("requested", "oldest", "newest", "problems", "second"):
        assert f'data-order="{order}"' in html
    newest = client.get(reverse("annotations:review-queue") + "?queue=newest").content.decode()
    assert newest.index("run 2") < newest.index("run 1") < newest.index("run 0")
    assert f'{three_runs[0].get_absolute_url()}?queue=newest' in newest
    problems = client.get(reverse("annotations:review-queue") + "?queue=problems").content.decode()
    assert problems.index("run 2") < problems.index("run 0")
    reviews.submit_review(three_runs[1], reviewer, rating=3, verdict="accept")
    second = client.get(reverse("annotations:review-queue") + "?queue=second").content.decode()
    assert "run 1" in second and "run 0" not in second


def test_owner_requests_a_review_and_it_heads_the_queue(client, user, other_user, reviewer, three_runs):
    target = three_runs[2]
    page = login(client, user).get(target.get_absolute_url()).content.decode()
    assert 'id="request-review"' in page
    assert login(client, other_user).post(reverse("annotations:review-request", args=[target.pk])).status_code == 404
    response = login(client, user).post(reverse("annotations:review-request", args=[target.pk]), **HTMX)
    assert response.status_code == 200 and "Review requested" in response.content.decode()
    assert 'id="request-review"' not in response.content.decode()
    queue = login(client, reviewer).get(reverse("annotations:review-queue")).content.decode()
    assert queue.index("run 2") < queue.index("run 0") and "review requested" in queue


def test_non_reviewer_is_told_why_they_cannot_review(client, user):
    session = make_session(user)
    html = login(client, user).get(session.get_absolute_url()).content.decode()
    assert "Only members of the reviewers group can review; ask an administrator." in html
    assert 'id="review-form"' not in html


def test_agreement_shows_from_two_reviews(client, user, reviewer, django_user_model):
    session = make_session(user)
    reviews.submit_review(session, reviewer, rating=4, verdict="accept")
    html = login(client, reviewer).get(session.get_absolute_url()).content.decode()
    assert 'id="review-agreement"' not in html and "100%" not in html
    other = django_user_model.objects.create_user("rev2", password="x")
    other.groups.add(*reviewer.groups.all())
    reviews.submit_review(session, other, rating=4, verdict="accept")
    html = client.get(session.get_absolute_url()).content.decode()
    assert re.search(r'id="review-agreement">100%', html)


def test_correction_shows_a_tag_diff(client, user, reviewer):
    session = make_session(user)
    corrections.correct_annotation(session, reviewer, "Sensory-event, (Image, Face, Red)")
    html = login(client, reviewer).get(session.get_absolute_url()).content.decode()
    assert '<ins class="diff-added">Red</ins>' in html
    assert '<del class="diff-removed">Visual-presentation</del>' in html


# --- readable annotations --------------------------------------------------------------------


def test_annotation_is_a_tree_with_tag_descriptions_on_tap(client, user):
    session = make_session(user, annotation="Sensory-event, (Visual-presentation, (Image, Face))")
    html = login(client, user).get(session.get_absolute_url()).content.decode()
    tree = html[html.index('id="final-annotation-tree"'):html.index('id="final-annotation-text"')]
    assert tree.count('<ul role="group">') == 2  # two nested groups
    assert re.search(r'<details class="hed-tip"><summary class="hed-node" title="[^"]+">Face</summary>'
                     r'<p class="hed-tip__text">The anterior portion', tree)
    assert "Hover a tag" not in html
    assert 'id="final-annotation-text"' in html and "data-copy-text" in html  # the one-line form, to copy
