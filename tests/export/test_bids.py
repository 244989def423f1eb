"""BIDS events.json export: levels and HED from assigned sessions, valid under hedtools."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone
from hed.models import Sidecar, TabularInput

from agents.schema import get_schema
from annotations.exports.bids import build_sidecar, validate_sidecar
from annotations.exports.formats import stream_export
from annotations.models import AnnotationSession
from annotations.review import services as reviews
from tests.review.factories import INVALID_HED, OTHER_VALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db

CORRECTED = "Sensory-event, Visual-presentation, (Image, Face, Green)"


@pytest.fixture
def assigned(user, reviewer):
    now = timezone.now()
    old = make_session(user, description="An old face annotation", annotation="Sensory-event, Face",
                       bids_column="event_type", bids_level="show_face")
    face = make_session(user, description="A face appears on the screen", annotation=VALID_HED,
                        bids_column="event_type", bids_level="show_face")
    press = make_session(user, description="The participant presses the button", annotation=OTHER_VALID_HED,
                         bids_column="event_type", bids_level="press")
    left = make_session(user, description="Response with the left hand",
                        annotation="(Left-side-of, Hand)", bids_column="response_hand",
                        bids_level="left")
    broken = make_session(user, description="Broken", annotation=INVALID_HED, is_valid=False,
                          status="invalid", bids_column="event_type", bids_level="broken")
    make_session(user, description="Not assigned")
    for session, minutes in ((old, 50), (face, 40), (press, 30), (left, 20), (broken, 10)):
        AnnotationSession.objects.filter(pk=session.pk).update(created_at=now - dt.timedelta(minutes=minutes))
    # The reviewer's correction is what the sidecar must carry, not the machine's annotation.
    reviews.correct_annotation(face, reviewer, CORRECTED)
    return {"face": face, "press": press, "left": left, "broken": broken}


def test_sidecar_has_levels_and_final_annotations(assigned):
    sidecar = build_sidecar(AnnotationSession.objects.all())
    assert set(sidecar.data) == {"event_type", "response_hand"}
    event_type = sidecar.data["event_type"]
    assert event_type["Levels"] == {"press": "The participant presses the button",
                                    "show_face": "A face appears on the screen"}
    assert event_type["HED"] == {"press": OTHER_VALID_HED, "show_face": CORRECTED}
    assert sidecar.data["response_hand"]["HED"] == {"left": "(Left-side-of, Hand)"}
    # The invalid annotation is left out and reported, not written into the sidecar.
    assert [s["level"] for s in sidecar.skipped] == ["broken"]


def test_exported_sidecar_validates_with_an_events_file(assigned, tmp_path):
    text = "".join(stream_export("bids", AnnotationSession.objects.all()))
    json_path = tmp_path / "sub-01_task-faces_events.json"
    json_path.write_text(text, encoding="utf-8")
    tsv_path = tmp_path / "sub-01_task-faces_events.tsv"
    tsv_path.write_text("onset\tduration\tevent_type\tresponse_hand\n"
                        "1.0\t0.5\tshow_face\tn/a\n"
                        "1.8\t0\tpress\tleft\n"
                        "3.0\t0.5\tshow_face\tn/a\n", encoding="utf-8")
    schema = get_schema("8.4.0")

    sidecar = Sidecar(str(json_path))
    assert sidecar.validate(schema) == []
    issues = TabularInput(str(tsv_path), sidecar=sidecar).validate(schema)
    assert [i for i in issues if i.get("severity", 1) == 1] == []
    assert validate_sidecar(json.loads(text), "8.4.0") == []


def test_sidecar_of_nothing_assigned_is_empty(user):
    make_session(user)
    assert json.loads("".join(stream_export("bids", AnnotationSession.objects.all()))) == {}


def test_hedtools_would_reject_the_left_out_annotation(assigned):
    # Guards the test above: the broken level really is invalid, so leaving it out matters.
    bad = {"event_type": {"Levels": {"broken": "x"}, "HED": {"broken": INVALID_HED}}}
    assert validate_sidecar(bad, "8.4.0")
