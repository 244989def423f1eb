"""The portal's memory: reviewed annotations reach later runs, and only reviewed ones; pages leak nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from annotations import corrections
from annotations.models import AgentStepRecord, AnnotationSession, Iteration
from annotations.records import REDACTED_EXAMPLE, session_record
from annotations.review import services as reviews
from annotations.runs.execution import execute_session
from annotations.runs.fragments import status_fragment
from annotations.runs.memory import memory_candidates
from annotations.runs.services import build_options, create_session
from annotations.selectors import with_record_relations
from tests.support.llm import ScriptedLLM

pytestmark = pytest.mark.django_db(transaction=True)

RED = "A red circle appears on the left side of the screen."
# A reviewer's own wording: the machine would never write the label, so reuse is visible.
CORRECTED = "Sensory-event, Visual-presentation, (Red, Circle, (Left-side-of, Computer-screen)), Label/Memory-check"
UNKNOWN = "Zorblax frimbles quandle."


def run(description: str, user=None, *, llm=None) -> AnnotationSession:
    session = create_session(user=user, description=description, options=build_options({}))
    done = asyncio.run(execute_session(session.pk, llm=llm, use_configured_llm=False))
    assert done is not None
    return done


def test_an_accepted_run_is_reused_for_the_same_description_offline(reviewer) -> None:
    first = run(RED)
    reviews.submit_review(first, reviewer, rating=5, verdict="accept")
    second = run("a RED circle appears on the left side of the screen!!")
    assert second.examples_used == [str(first.pk)]
    assert second.final_annotation == first.final_annotation
    assert AgentStepRecord.objects.filter(session=second, agent="memory").exists()
    assert any("accepted by a reviewer" in note for note in second.notes)


def test_a_corrected_run_teaches_its_correction(reviewer) -> None:
    first = run(RED)
    corrections.correct_annotation(first, reviewer, CORRECTED)
    second = run(RED)
    assert second.status == "succeeded" and second.final_annotation == CORRECTED
    assert second.examples_used == [str(first.pk)]
    assert Iteration.objects.get(session=second, number=1).annotation == CORRECTED


def test_an_llm_run_gets_similar_examples_in_its_prompt(reviewer) -> None:
    first = run("A green square flashes at the centre of the screen.")
    corrections.correct_annotation(first, reviewer,
                                   "Sensory-event, Visual-presentation, (Green, Square), Label/Flash-x")
    llm = ScriptedLLM({"annotation": ["Sensory-event, Visual-presentation, (Green, Square)"],
                       "evaluation": ['{"faithful": true}']})
    second = run("A green square flashes in the middle of the screen.", llm=llm)
    prompt = json.dumps(llm.calls_for("annotation")[0])
    assert "Label/Flash-x" in prompt and "green square flashes at the centre" in prompt
    assert second.examples_used == [str(first.pk)]


def test_drafts_and_rejected_reviews_never_become_memory(reviewer, staff) -> None:
    drafted = run(RED)
    corrections.correct_annotation(drafted, reviewer, CORRECTED, draft=True)
    rejected = run(RED)
    reviews.submit_review(rejected, reviewer, rating=1, verdict="reject")
    disputed = run(RED)  # one accept against one reject: nobody stands by it
    reviews.submit_review(disputed, reviewer, rating=4, verdict="accept")
    reviews.submit_review(disputed, staff, rating=1, verdict="reject")
    needs_fix = run(RED)
    reviews.submit_review(needs_fix, reviewer, rating=3, verdict="needs-fix")
    assert memory_candidates(drafted.schema_version) == []
    later = run(RED)
    assert later.examples_used == [] and CORRECTED not in later.final_annotation
    assert not AgentStepRecord.objects.filter(session=later, agent="memory").exists()


def test_memory_keeps_to_the_schema_version(reviewer) -> None:
    first = run(RED)
    reviews.submit_review(first, reviewer, rating=5, verdict="accept")
    assert [e.source_id for e in memory_candidates(first.schema_version)] == [str(first.pk)]
    assert memory_candidates("8.2.0") == []


def test_another_users_example_shows_no_description_to_who_may_not_see_it(user, other_user, reviewer) -> None:
    secret = "A green square flashes at the centre of the screen during calibration block zeta."
    theirs = run(secret, other_user)
    reviews.submit_review(theirs, reviewer, rating=5, verdict="accept")
    mine_first = run("A green square flashes at the centre of the screen.", user)
    reviews.submit_review(mine_first, reviewer, rating=5, verdict="accept")
    llm = ScriptedLLM({"annotation": ["Sensory-event, Visual-presentation, (Green, Square)"],
                       "evaluation": ['{"faithful": true}']})
    mine = run("A green square flashes in the centre of the screen.", user, llm=llm)
    assert set(mine.examples_used) == {str(theirs.pk), str(mine_first.pk)}
    assert "calibration block zeta" in json.dumps(llm.calls_for("annotation")[0])  # the model did learn from it

    owner = Client()
    owner.force_login(user)
    page = owner.get(mine.get_absolute_url()).content.decode()
    assert "Examples from memory" in page
    assert "calibration block zeta" not in page
    assert theirs.get_absolute_url() not in page  # its id may show (memory step), never a link
    assert "a reviewed run you cannot open" in page
    assert mine_first.get_absolute_url() in page  # their own source is linked

    # The run's JSONL record (its export) carries the prompts: other users' descriptions are cut out of them.
    record = session_record(with_record_relations(AnnotationSession.objects.filter(pk=mine.pk)).get(), full=True)
    assert record["llm_calls"] and "calibration block zeta" not in json.dumps(record)
    assert REDACTED_EXAMPLE in record["llm_calls"][0]["request"]
    assert "A green square flashes at the centre of the screen." in record["llm_calls"][0]["request"]  # own one

    # The live page gets the same section pushed over its socket when the run ends: the same rule holds.
    pushed = status_fragment(mine, user)
    assert "Examples from memory" in pushed and "calibration block zeta" not in pushed

    lab = Client()
    lab.force_login(reviewer)
    page = lab.get(mine.get_absolute_url()).content.decode()
    assert "calibration block zeta" in page and theirs.get_absolute_url() in page
    assert "calibration block zeta" in status_fragment(mine, reviewer)


def test_confidence_and_unknown_words_are_stored_and_shown(user) -> None:
    done = run(UNKNOWN, user)
    assert done.low_confidence is True and done.confidence is not None and done.confidence < 0.5
    assert "zorblax" in done.unknown_terms
    evaluated = Iteration.objects.filter(session=done, confidence__isnull=False).last()
    assert evaluated is not None and evaluated.low_confidence and "zorblax" in evaluated.unknown_terms
    client = Client()
    client.force_login(user)
    page = client.get(done.get_absolute_url()).content.decode()
    assert "Low confidence" in page and "zorblax" in page

    sure = run(RED, user)
    assert sure.low_confidence is False and sure.confidence == 1.0 and sure.unknown_terms == []
    assert "Low confidence" not in client.get(sure.get_absolute_url()).content.decode()
    # History marks the unsure run, and only that one.
    history = client.get("/sessions/").content.decode()
    assert history.count("low confidence</span>") == 1


def test_api_and_annotate_json_carry_confidence(user) -> None:
    done = run(UNKNOWN, user)
    api = APIClient()
    api.force_authenticate(user)
    body = api.get(f"/api/sessions/{done.pk}/").json()
    assert body["low_confidence"] is True and body["confidence"] == done.confidence
    assert "zorblax" in body["unknown_terms"] and body["examples_used"] == [] and "notes" in body
    assert any(it["low_confidence"] for it in body["iterations"])
    listed = api.get("/api/sessions/").json()["results"][0]
    assert listed["low_confidence"] is True

    out = StringIO()
    with contextlib.suppress(SystemExit):  # the exit code says whether the annotation is valid
        call_command("annotate", UNKNOWN, "--json", stdout=out, stderr=StringIO())
    record = json.loads(out.getvalue())
    assert record["low_confidence"] is True and "zorblax" in record["unknown_terms"]
    assert record["confidence"] is not None and "examples_used" in record
    assert any(it["low_confidence"] for it in record["iterations"])
