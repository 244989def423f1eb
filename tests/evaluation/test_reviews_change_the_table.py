"""Reviews change the table: a correction moves that run's gold (and an evaluation run's, through its item), a
rejection counts against acceptance; the stored facts of a run (first attempt, failures) become its figures."""

from __future__ import annotations

import pytest

from annotations.corrections import correct_annotation
from annotations.evaluation.scope import Scope
from annotations.evaluation.selectors import evaluation_table
from annotations.evaluation.sets import reviewed_set
from annotations.models import (
    EvaluationBatch,
    Iteration,
    LLMCallRecord,
    SessionStatus,
    ValidationIssueRecord,
)
from annotations.review.services import submit_review
from annotations.runs.execution import model_failed_note
from tests.support.reviews import make_session

pytestmark = pytest.mark.django_db

LAB = {"llm_provider": "lab.example", "llm_model": "gamma", "llm_constraint": "json_schema",
       "prompt_version": "p0000test"}
FULL = "Sensory-event, Visual-presentation, (Red, Circle)"  # 4 tags
SHORT = "Sensory-event, (Red, Circle)"  # 3 of them


def _row(user, model="gamma", **scope):
    rows = {r.configuration.model: r for r in evaluation_table(Scope(**scope), user).rows}
    return rows[model]


def _f1(tp, fp, fn):
    p, r = tp / (tp + fp), tp / (tp + fn)
    return 2 * p * r / (p + r)


def test_acceptance_corrections_and_rejections_move_the_figures(user, reviewer):
    accepted = make_session(user, annotation=FULL, **LAB)
    fixed = make_session(user, annotation=SHORT, **LAB)
    rejected = make_session(user, annotation="Agent-action, (Press, Push-button)", **LAB)
    make_session(user, annotation=FULL, **LAB)  # never reviewed: validity only
    before = _row(user)
    assert before.runs == 4 and before.tags.n == 0 and before.tags.f1 is None
    assert before.reviewed == 0 and before.accepted is None

    submit_review(accepted, reviewer, rating=4, verdict="accept")
    submit_review(fixed, reviewer, rating=2, verdict="needs-fix")
    correct_annotation(fixed, reviewer, FULL)
    submit_review(rejected, reviewer, rating=1, verdict="reject")
    row = _row(user)
    # Gold: the accepted run's own annotation (4, 0, 0), the correction of the other (3, 0, 1); none for the
    # rejected one. Its machine annotation, not the correction, is what the model is scored on.
    assert (row.tags.n, row.tags.precision, row.tags.recall) == (2, 1.0, 7 / 8)
    assert row.tags.f1 == pytest.approx(_f1(7, 0, 1))
    assert (row.reviewed, row.accepted, row.corrected, row.rejected) == (3, 1 / 3, 1 / 3, 1 / 3)
    assert row.mean_rating == pytest.approx(7 / 3) and row.rated == 3
    assert row.acceptance_interval is not None and row.acceptance_interval.low <= 1 / 3 <= row.acceptance_interval.high

    correct_annotation(accepted, reviewer, "Sensory-event, Auditory-presentation")  # a correction moves its gold
    moved = _row(user)
    # (1, 3, 1) for the corrected-away run, (3, 0, 1) as before.
    assert moved.tags.f1 == pytest.approx(_f1(4, 3, 2))
    assert (moved.accepted, moved.corrected, moved.rejected) == (0.0, 2 / 3, 1 / 3)


def test_an_evaluation_run_is_scored_on_the_reviewed_run_its_item_is(user, reviewer):
    source = make_session(user, description="A red circle appears.", annotation=SHORT)
    submit_review(source, reviewer, rating=5, verdict="accept")
    evaluation_set = reviewed_set(user)
    item = evaluation_set.items.get()
    batch = EvaluationBatch.objects.create(set=evaluation_set, user=user, schema_version="8.4.0", total=1,
                                           finished_at=source.created_at)
    run = make_session(user, description=item.description, annotation=FULL, evaluation_batch=batch,
                       evaluation_item=item, **LAB)
    assert _row(user, batches=(batch.pk,)).tags.f1 == pytest.approx(_f1(3, 1, 0))

    correct_annotation(source, reviewer, FULL)  # the reviewed run's correction is the evaluation's new gold
    assert _row(user, batches=(batch.pk,)).tags.f1 == 1.0
    submit_review(source, reviewer, rating=1, verdict="reject")
    assert _row(user, batches=(batch.pk,)).tags.f1 == 1.0  # a standing correction stands, whatever the verdicts

    # The evaluation run's own acceptance counts for acceptance; its gold stays the item's.
    submit_review(run, reviewer, rating=5, verdict="accept")
    reviewed = _row(user, batches=(batch.pk,))
    assert (reviewed.reviewed, reviewed.accepted, reviewed.tags.f1) == (1, 1.0, 1.0)
    # Corrected back to the machine's own annotation, the verdicts decide: the reviewer rejected it, so no gold.
    correct_annotation(source, reviewer, SHORT)
    assert _row(user, batches=(batch.pk,)).tags.n == 0
    submit_review(source, reviewer, rating=4, verdict="accept")
    assert _row(user, batches=(batch.pk,)).tags.f1 == pytest.approx(_f1(3, 1, 0))


def test_first_attempts_and_failures_come_from_what_each_run_stored(user):
    invalid_first = make_session(user, annotation=FULL, iteration_count=2, **LAB)
    Iteration.objects.create(session=invalid_first, number=1, annotation="Sensory-event, Blorp", is_valid=False)
    Iteration.objects.create(session=invalid_first, number=2, annotation=FULL, is_valid=True)
    valid_first = make_session(user, annotation=FULL, **LAB)
    Iteration.objects.create(session=valid_first, number=1, annotation=FULL, is_valid=True)
    unreadable = make_session(user, annotation="", status=SessionStatus.INVALID, is_valid=False, iteration_count=1,
                              **LAB)
    first = Iteration.objects.create(session=unreadable, number=1, annotation="", is_valid=False)
    ValidationIssueRecord.objects.create(iteration=first, code="PARSE_ERROR", message="no HED in the reply")
    timed_out = make_session(user, annotation="", status=SessionStatus.FAILED, is_valid=None, iteration_count=0,
                             **LAB)
    LLMCallRecord.objects.create(session=timed_out, agent="annotation", error="did not answer", error_kind="timeout")
    refused = make_session(user, annotation="", status=SessionStatus.FAILED, is_valid=None, iteration_count=0,
                           **LAB)
    LLMCallRecord.objects.create(session=refused, agent="annotation", error="HTTP 401", error_kind="refused")
    make_session(user, annotation=FULL, notes=[model_failed_note("HTTP 500")], **LAB)  # the offline stood in
    make_session(user, annotation=FULL, status=SessionStatus.CANCELLED, **LAB)  # says nothing of the model

    row = _row(user)
    assert row.runs == 6
    assert row.first_valid == pytest.approx(1 / 6)  # only one run's first attempt validated
    assert row.final_valid == pytest.approx(2 / 6)  # the stood-in run's valid annotation is not the model's
    assert (row.failed, row.timeouts, row.refusals, row.invalid_replies) == (3, 1, 1, 1)
    assert row.mean_attempts == pytest.approx((2 + 1 + 1 + 0 + 0 + 1) / 6)


def test_runs_from_before_configurations_were_recorded_go_by_who_wrote_them(user):
    make_session(user, producer="offline annotator")
    make_session(user, producer="some-model-v1")
    models = {r.configuration.model: r.configuration for r in evaluation_table(Scope(), user).rows}
    assert models["offline annotator"].is_offline
    assert (models["some-model-v1"].provider, models["some-model-v1"].constrained) == ("", False)
