"""Acceptance: two scripted endpoints that answer differently and the offline annotator, evaluated on one made-up
gold set through the ordinary workflow and queue; every figure of the table checked by hand.

alpha answers valid at once (g3 judged not faithful, so refined once: 3 calls, 2 attempts); beta answers
invalid, then valid after the feedback (4 calls, 2 attempts). Tags per item, definitions kept:

========  ====================  =====================  ========================
item      gold tags             alpha (tp, fp, fn)     beta "Sensory-event"
========  ====================  =====================  ========================
g1        4                     (4, 0, 0)              (1, 0, 3)
g2        4                     (3, 0, 1)              (0, 1, 4)
g3        3                     (2, 0, 1)              (1, 0, 2)
g4        5 (def, definition)   (3, 0, 2)              (1, 0, 4)
g4 expanded: 3                  (3, 0, 0)              (1, 0, 2)
========  ====================  =====================  ========================
"""

from __future__ import annotations

import pytest

from annotations.evaluation.batches import start_evaluation
from annotations.evaluation.scope import Scope
from annotations.evaluation.selectors import evaluation_table
from annotations.evaluation.sets import gold_set
from annotations.models import AnnotationSession, LLMCallRecord
from tests.evaluation.conftest import gold_csv, run_to_end

pytestmark = pytest.mark.django_db(transaction=True)


def _f1(tp: int, fp: int, fn: int) -> float:
    p, r = tp / (tp + fp), tp / (tp + fn)
    return 2 * p * r / (p + r)


def _rows(batches, user):
    table = evaluation_table(Scope(batches=tuple(b.pk for b in batches)), user)
    return {row.configuration.model: row for row in table.rows}


def test_every_figure_of_two_endpoints_and_the_offline_annotator(endpoints, user):
    evaluation_set = gold_set(user, "made-up.csv", gold_csv())
    batches = [start_evaluation(evaluation_set, user=user, model=name) for name in ("alpha", "beta", "offline")]
    run_to_end(*batches)
    rows = _rows(batches, user)
    assert set(rows) == {"alpha", "beta", "offline annotator"}
    alpha, beta, offline = rows["alpha"], rows["beta"], rows["offline annotator"]

    # The configuration each run recorded: the server's endpoint, the user's own (its host), the offline annotator.
    assert alpha.configuration.provider == endpoints["alpha"].base_url.split("/")[2]
    assert beta.configuration.provider == endpoints["beta"].base_url.split("/")[2]
    assert alpha.configuration.constrained is False and alpha.configuration.prompt_version.startswith("p")
    assert offline.configuration.constrained is None and offline.configuration.prompt_version == ""
    assert {r.configuration.schema_version for r in rows.values()} == {"8.4.0"}

    for row in (alpha, beta, offline):
        assert row.runs == 4 and row.final_valid == 1.0 and row.failed == 0
        assert (row.timeouts, row.invalid_replies, row.refusals) == (0, 0, 0)
        assert row.reviewed == 0 and row.accepted is None and row.mean_rating is None
    assert alpha.first_valid == 1.0 and beta.first_valid == 0.0
    assert alpha.mean_attempts == pytest.approx(5 / 4) and beta.mean_attempts == 2.0

    # Tags, definitions kept (every item), expanded, and without the row whose gold uses definitions.
    assert (alpha.tags.n, alpha.tags.precision, alpha.tags.recall) == (4, 1.0, 12 / 16)
    assert alpha.tags.f1 == pytest.approx(_f1(12, 0, 4))
    assert alpha.tags_expanded.f1 == pytest.approx(_f1(12, 0, 2))
    assert (alpha.tags_referee.n, alpha.tags_referee.f1) == (3, pytest.approx(_f1(9, 0, 2)))
    assert (beta.tags.precision, beta.tags.recall) == (3 / 4, 3 / 16)
    assert beta.tags.f1 == pytest.approx(_f1(3, 1, 13))
    assert beta.tags_expanded.f1 == pytest.approx(_f1(3, 1, 11))
    assert beta.tags_referee.f1 == pytest.approx(_f1(2, 1, 9))
    for figures in (alpha.tags, beta.tags, alpha.tags_expanded):  # n < 200: the interval is there, around F1
        assert figures.interval is not None and 0 <= figures.interval.low <= figures.f1 <= figures.interval.high <= 1

    # The faithfulness judge's verdicts (alpha found g3 unfaithful), apart from F1.
    assert (alpha.judged, alpha.faithful) == (4, 3 / 4) and (beta.judged, beta.faithful) == (4, 1.0)

    # Usage: alpha 2, 2, 3, 2 calls; beta 4 calls a run; 110 tokens and $0.001 a call; offline none.
    assert (alpha.total_tokens, alpha.mean_tokens) == (990, 247.5)
    assert alpha.total_cost == pytest.approx(0.009) and alpha.mean_cost == pytest.approx(0.00225)
    assert (beta.total_tokens, beta.mean_cost) == (1760, pytest.approx(0.004))
    assert (offline.total_tokens, offline.total_cost) == (0, 0.0)
    assert alpha.latency_p50 is not None and alpha.latency_p50 <= alpha.latency_p95

    # What the endpoints were asked: beta's retries carry the validator's error; alpha refined g3 once.
    beta_annotations = [r for r in endpoints["beta"].chat_requests() if "HED rules" in r.text]
    assert len(beta_annotations) == 8 and sum("Blorp-tag" in r.text for r in beta_annotations) == 4
    assert LLMCallRecord.objects.filter(session__evaluation_batch=batches[0]).count() == 9


def test_latency_percentiles_are_read_from_the_runs_times(endpoints, user):
    import datetime as dt

    evaluation_set = gold_set(user, "made-up.csv", gold_csv())
    batch = start_evaluation(evaluation_set, user=user, model="offline")
    run_to_end(batch)
    start = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    for seconds, run in zip((1.0, 2.0, 3.0, 10.0), AnnotationSession.objects.filter(evaluation_batch=batch),
                            strict=True):
        AnnotationSession.objects.filter(pk=run.pk).update(started_at=start,
                                                           finished_at=start + dt.timedelta(seconds=seconds))
    row = _rows([batch], user)["offline annotator"]
    # Linear interpolation between ranks: p50 of 1, 2, 3, 10 is 2.5; p95 is 3 + 0.85 * 7.
    assert row.latency_p50 == pytest.approx(2.5) and row.latency_p95 == pytest.approx(8.95)
