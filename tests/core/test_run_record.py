"""One record of a run: the API, the JSONL and CSV exports and the run page read the same rules."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotations import corrections, records
from annotations.exports import formats as exports
from annotations.models import AnnotationSession
from annotations.review import services as reviews
from annotations.selectors import with_record_relations
from tests.support.reviews import INVALID_HED, VALID_HED, add_run_details, make_session

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttle():
    cache.clear()
    yield
    cache.clear()


def _loaded(session: AnnotationSession) -> AnnotationSession:
    return with_record_relations(AnnotationSession.objects.filter(pk=session.pk)).get()


@pytest.fixture
def corrected_run(user, reviewer, staff) -> AnnotationSession:
    session = add_run_details(make_session(user, annotation=INVALID_HED, is_valid=False, status="invalid"))
    corrections.correct_annotation(session, reviewer, VALID_HED)
    reviews.submit_review(session, reviewer, rating=5, verdict="accept")
    reviews.submit_review(session, staff, rating=2, verdict="needs-fix")
    return _loaded(session)


@pytest.mark.parametrize(("final", "machine", "expected"), [
    ("", "", False), ("", "Red", False), ("Red", "Red", False), ("Red", "", True), ("Red", None, True),
    (None, None, False), ("Blue", "Red", True)])
def test_a_correction_is_a_final_annotation_other_than_the_machines(final, machine, expected):
    assert records.corrected(final, machine) is expected


def test_every_reader_gives_the_same_record(corrected_run, user, reviewer):
    record = records.export_record(corrected_run)
    summary = records.summary_of(corrected_run)
    assert record["corrected"] is True and record["annotation"] == VALID_HED
    assert record["review_summary"] == summary.as_dict() == {
        "count": 2, "mean_rating": 3.5, "accept": 1, "needs_fix": 1, "reject": 0, "agreement": 0.5}

    # JSONL: the record, one line.
    (line,) = "".join(exports.stream_jsonl(AnnotationSession.objects.all())).splitlines()
    assert json.loads(line) == json.loads(json.dumps(record, default=str))

    # CSV: the flat record of the same rules.
    (row,) = csv.DictReader(io.StringIO("".join(exports.stream_csv(AnnotationSession.objects.all()))))
    assert (row["corrected"], row["annotation"], row["mean_rating"]) == ("true", VALID_HED, "3.50")
    assert (row["reviews"], row["accept"], row["needs_fix"], row["reject"]) == ("2", "1", "1", "0")

    # API: the same corrected flag, summary, usage and dataset level.
    api = APIClient()
    api.force_authenticate(user)
    data = api.get(reverse("api:session-detail", args=[corrected_run.pk])).json()
    assert data["corrected"] is record["corrected"]
    for name in ("review_summary", "usage", "dataset_level"):
        assert data[name] == record[name], name

    # The run page.
    client = Client()
    client.force_login(reviewer)
    page = client.get(corrected_run.get_absolute_url()).content.decode()
    assert 'data-corrected="true"' in page and "Human-corrected" in page


def test_the_review_queue_marks_corrections_by_the_same_rule(user, reviewer):
    corrected = make_session(user, description="corrected run", annotation=INVALID_HED, is_valid=False,
                             status="invalid", producer="model-x")
    corrections.correct_annotation(corrected, reviewer, VALID_HED)
    make_session(user, description="machine run", producer="model-y", is_faithful=False)
    client = Client()
    client.force_login(reviewer)
    queue = client.get(reverse("annotations:review-queue")).content.decode()
    assert "by model-x, corrected by a reviewer" in queue
    assert "by model-y</span>" in queue and queue.count("Not faithful") == 1
    assert 'class="pager" aria-label="Pages"' in queue and "Page 1 of 1" in queue


def test_the_machines_annotation_is_not_a_correction(user):
    session = _loaded(make_session(user, annotation=VALID_HED))
    assert records.is_corrected(session) is False
    assert records.session_record(session)["corrected"] is False
    row = {**{name: getattr(session, name) for name in ("id", "created_at", "description", "final_annotation",
                                                          "machine_annotation", "schema_version", "is_valid",
                                                          "status", "iteration_count", "prompt_tokens",
                                                          "completion_tokens", "cost_usd", "mean_rating",
                                                          "review_count", "accept_count", "needs_fix_count",
                                                          "reject_count", "producer")},
           "user__username": "ann"}
    cells = dict(zip(records.FLAT_COLUMNS, records.flat_record(row), strict=True))
    assert (cells["corrected"], cells["mean_rating"], cells["reviews"]) == ("false", "", "0")


def test_the_review_queue_pages_with_the_shared_pager(user, reviewer, monkeypatch):
    monkeypatch.setattr("annotations.review.views.QUEUE_PAGE_SIZE", 2)
    for i in range(5):
        make_session(user, description=f"run {i}")
    client = Client()
    client.force_login(reviewer)
    page = client.get(reverse("annotations:review-queue"), {"queue": "oldest", "page": 2}).content.decode()
    assert '<span class="muted">Page 2 of 3</span>' in page
    assert 'rel="prev" href="?queue=oldest&amp;page=1">← Previous</a>' in page
    assert 'rel="next" href="?queue=oldest&amp;page=3">Next →</a>' in page
