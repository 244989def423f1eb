"""CSV, JSONL and paging of exports (the BIDS sidecar has its own tests)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from decimal import Decimal

import pytest
from django.utils import timezone

from annotations import corrections
from annotations.exports import formats as exports
from annotations.exports.keyset import keyset_pages
from annotations.models import AnnotationSession
from annotations.review import services as reviews
from tests.support.reviews import INVALID_HED, VALID_HED, add_run_details, make_session

pytestmark = pytest.mark.django_db


def csv_rows(qs, **kwargs) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO("".join(exports.stream_csv(qs, **kwargs)))))


def test_csv_row_per_session_with_every_column(user, reviewer, staff):
    session = make_session(user, description="A face appears", annotation=INVALID_HED, is_valid=False,
                           status="invalid", prompt_tokens=100, completion_tokens=20, cost_usd=Decimal("0.0125"),
                           iteration_count=3)
    corrections.correct_annotation(session, reviewer, VALID_HED)
    reviews.submit_review(session, reviewer, rating=4, verdict="accept")
    reviews.submit_review(session, staff, rating=2, verdict="needs-fix")
    (row,) = csv_rows(AnnotationSession.objects.all())
    assert list(row) == list(exports.CSV_COLUMNS)
    assert row["id"] == str(session.pk) and row["user"] == "ann" and row["description"] == "A face appears"
    assert row["annotation"] == VALID_HED and row["corrected"] == "true" and row["valid"] == "true"
    assert (row["schema_version"], row["status"], row["iterations"], row["tokens"]) == ("8.4.0", "invalid", "3",
                                                                                        "120")
    assert row["cost_usd"] == "0.012500" and row["mean_rating"] == "3.00"
    assert (row["reviews"], row["accept"], row["needs_fix"], row["reject"]) == ("2", "1", "1", "0")
    assert dt.datetime.fromisoformat(row["created"]) == AnnotationSession.objects.get().created_at


@pytest.mark.parametrize("text", ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tTAB"])
def test_formula_cells_are_neutralised(user, text):
    make_session(user, description=text, annotation=text)
    (row,) = csv_rows(AnnotationSession.objects.all())
    # A tab inside a cell is a space: in a TSV it would start a column beyond the guard.
    assert row["description"] == "'" + text.replace("\t", " ") and row["annotation"] == "'" + text.replace("\t", " ")


def test_ordinary_cells_are_untouched(user):
    make_session(user, description="A (red) circle, 5 cm", annotation="(Red, Circle)")
    (row,) = csv_rows(AnnotationSession.objects.all())
    assert (row["description"], row["annotation"]) == ("A (red) circle, 5 cm", "(Red, Circle)")


def test_keyset_pages_cover_every_session_once_even_with_equal_times(user):
    now = timezone.now()
    made = [make_session(user, description=f"run {i}") for i in range(7)]
    # Equal creation times across a page boundary must neither repeat nor drop a session.
    AnnotationSession.objects.filter(pk__in=[s.pk for s in made[:4]]).update(created_at=now)
    AnnotationSession.objects.filter(pk__in=[s.pk for s in made[4:]]).update(created_at=now - dt.timedelta(1))
    pages = list(keyset_pages(AnnotationSession.objects.all(), 3))
    assert [len(p) for p in pages] == [3, 3, 1]
    ids = [row["id"] for page in pages for row in page]
    assert sorted(ids) == sorted(s.pk for s in made)
    assert len(csv_rows(AnnotationSession.objects.all(), page_size=2)) == 7


def test_csv_streams_one_chunk_per_page(user):
    for i in range(5):
        make_session(user, description=f"run {i}")
    chunks = list(exports.stream_csv(AnnotationSession.objects.all(), page_size=2))
    assert len(chunks) == 1 + 3  # header, then pages of 2, 2, 1


def test_jsonl_has_the_full_record(user, reviewer):
    session = add_run_details(make_session(user))
    reviews.submit_review(session, reviewer, rating=5, verdict="accept", comment="spot on")
    corrections.correct_annotation(session, reviewer, "Sensory-event, Visual-presentation, (Image, Face, Red)")
    make_session(user, description="second")
    lines = "".join(exports.stream_jsonl(AnnotationSession.objects.all(), page_size=1)).splitlines()
    assert len(lines) == 2
    record = next(json.loads(line) for line in lines if json.loads(line)["session_id"] == str(session.pk))
    assert [it["number"] for it in record["iterations"]] == [1, 2]
    assert record["iterations"][0]["errors"][0]["code"] == "TAG_INVALID"
    assert record["steps"][0]["agent"] == "annotation"
    assert record["llm_calls"][0]["response"] == INVALID_HED
    assert record["reviews"][0]["comment"] == "spot on"
    assert record["revisions"][0]["before"] == VALID_HED
    assert record["annotation"].endswith("Red)") and record["machine_annotation"] == VALID_HED
    assert record["review_summary"]["agreement"] is None  # one review: agreement says nothing yet
    assert record["dataset_level"] is None


def test_visible_sessions_and_filters_decide_the_export(user, other_user, reviewer):
    make_session(user, description="mine, invalid", status="invalid", is_valid=False)
    make_session(user, description="mine, fine")
    make_session(other_user, description="theirs")
    qs = exports.sessions_for_export(user, {"status": "invalid"})
    assert [r["description"] for r in csv_rows(qs)] == ["mine, invalid"]
    assert len(csv_rows(exports.sessions_for_export(reviewer, {}))) == 3
    with pytest.raises(exports.FilterError) as info:
        exports.sessions_for_export(user, {"verdict": "maybe"})
    assert "verdict" in info.value.as_dict()


def test_unknown_format():
    with pytest.raises(exports.ExportError) as info:
        exports.check_format("xlsx")
    assert info.value.as_dict().keys() == {"format"}
