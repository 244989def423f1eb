"""Evaluation runs go through the ordinary queue a few at a time, stop when cancelled, restart after a stop,
count against their own quota, stay out of the history by default, and draw on no memory."""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import async_to_sync
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from annotations.errors import QuotaExceeded
from annotations.evaluation.batches import cancel_evaluation, progress_of, recover_evaluations, start_evaluation
from annotations.evaluation.queue import next_runs
from annotations.evaluation.sets import gold_set
from annotations.limits import check_run_quota
from annotations.models import AnnotationSession, EvaluationBatch, SessionStatus
from annotations.review.services import submit_review
from annotations.runs.execution import execute_session
from tests.evaluation.conftest import gold_csv
from tests.support.reviews import make_session

pytestmark = pytest.mark.django_db


@pytest.fixture
def four_items(user):
    return gold_set(user, "made-up.csv", gold_csv())


def _start(evaluation_set, user, capture, **kwargs):
    """Start an evaluation with its runs' tasks captured, not run: the test decides what happens to them."""
    with capture(execute=False) as queued:
        batch = start_evaluation(evaluation_set, user=user, model="offline", **kwargs)
    return batch, queued


def _finish(batch, when):
    AnnotationSession.objects.filter(evaluation_batch=batch).update(
        status=SessionStatus.SUCCEEDED, started_at=when, finished_at=when)


def test_at_most_its_concurrency_is_queued_and_each_end_starts_the_next(four_items, user, settings,
                                                                        django_capture_on_commit_callbacks):
    settings.HEDIT_EVALUATION_CONCURRENCY = "2"
    batch, queued = _start(four_items, user, django_capture_on_commit_callbacks)
    runs = AnnotationSession.objects.filter(evaluation_batch=batch)
    assert runs.count() == 2 and len(queued) == 2 and batch.total == 4 and batch.status == "running"
    assert next_runs(batch.pk, lambda session_id: None) == []  # no room while two are unfinished
    assert [r.evaluation_item.position for r in runs.order_by("evaluation_item__position")] == [1, 2]

    first = runs.order_by("evaluation_item__position").first()
    AnnotationSession.objects.filter(pk=first.pk).update(status=SessionStatus.SUCCEEDED)
    enqueued: list[str] = []
    with django_capture_on_commit_callbacks(execute=True):
        started = next_runs(batch.pk, enqueued.append)
    assert started == enqueued and len(started) == 1  # one ended, one more starts: item 3
    assert AnnotationSession.objects.get(pk=started[0]).evaluation_item.position == 3
    assert progress_of(batch).done == 1

    _finish(batch, timezone.now())
    next_runs(batch.pk, enqueued.append)  # item 4
    _finish(batch, timezone.now())
    assert next_runs(batch.pk, enqueued.append) == []
    batch.refresh_from_db()
    assert batch.status == "done" and progress_of(batch).done == 4


def test_cancel_stops_the_queued_runs_and_starts_no_more(four_items, user, other_user,
                                                         django_capture_on_commit_callbacks):
    batch, _ = _start(four_items, user, django_capture_on_commit_callbacks)
    with pytest.raises(Exception, match="Only whoever started this evaluation"):
        cancel_evaluation(batch, other_user)
    cancel_evaluation(batch, user)
    assert batch.status == "cancelled"
    runs = AnnotationSession.objects.filter(evaluation_batch=batch)
    assert set(runs.values_list("status", flat=True)) == {SessionStatus.CANCELLED}
    assert next_runs(batch.pk, lambda session_id: None) == [] and runs.count() == 2


def test_a_chain_a_stopped_process_broke_starts_again(four_items, user, django_capture_on_commit_callbacks):
    batch, _ = _start(four_items, user, django_capture_on_commit_callbacks)
    now = timezone.now()
    _finish(batch, now)  # both ended, and the process stopped before starting the next ones
    with django_capture_on_commit_callbacks(execute=False):
        assert recover_evaluations(now) == []  # ended moments ago: their own chain may still be at work
        assert recover_evaluations(now + dt.timedelta(minutes=5)) == [str(batch.pk)]
    assert AnnotationSession.objects.filter(evaluation_batch=batch).count() == 4


def test_evaluations_count_against_their_own_quota(four_items, user, settings, django_capture_on_commit_callbacks):
    settings.HEDIT_EVALUATION_RATE = "6/day"
    settings.HEDIT_RUN_RATE = "1/hour"
    _start(four_items, user, django_capture_on_commit_callbacks)
    with pytest.raises(QuotaExceeded, match="would pass the evaluation limit of 6 per day"):
        _start(four_items, user, django_capture_on_commit_callbacks)
    assert EvaluationBatch.objects.count() == 1
    with transaction.atomic():
        check_run_quota(user)  # the two evaluation runs stored are not single runs


def test_the_history_leaves_evaluation_runs_out_unless_asked(client, four_items, user,
                                                             django_capture_on_commit_callbacks):
    make_session(user, description="A lab's own run of a blue light.")
    _start(four_items, user, django_capture_on_commit_callbacks)
    client.force_login(user)
    page = client.get(reverse("annotations:history")).content.decode()
    assert "blue light" in page and "green square" not in page
    shown = client.get(reverse("annotations:history"), {"evaluations": "show"}).content.decode()
    assert "blue light" in shown and "green square" in shown
    only = client.get(reverse("annotations:history"), {"evaluations": "only"}).content.decode()
    assert "blue light" not in only and "green square" in only


def test_an_evaluation_run_draws_on_no_memory_and_records_its_configuration(user, reviewer,
                                                                            django_capture_on_commit_callbacks):
    description = "A green square appears at the center of the screen."
    remembered = make_session(user, description=description, annotation="Sensory-event, (Green, Square)")
    submit_review(remembered, reviewer, rating=5, verdict="accept")
    evaluation_set = gold_set(user, "one.csv", f'description,hed\n"{description}","Sensory-event"\n')
    batch, _ = _start(evaluation_set, user, django_capture_on_commit_callbacks)
    lab_run = make_session(user, description=description, annotation="", status=SessionStatus.QUEUED)
    evaluation_run = AnnotationSession.objects.get(evaluation_batch=batch)

    done = async_to_sync(execute_session)(evaluation_run.pk)
    assert done.examples_used == [] and done.machine_annotation != remembered.final_annotation
    assert (done.llm_provider, done.llm_model, done.llm_constraint, done.prompt_version) == (
        "offline", "offline annotator", "", "")
    lab = async_to_sync(execute_session)(lab_run.pk)
    assert lab.examples_used == [str(remembered.pk)]  # the same description outside an evaluation reuses it


def test_saving_a_new_model_reruns_the_watched_sets_with_it(client, endpoints, four_items, user,
                                                            django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        first = start_evaluation(four_items, user=user)  # the model the user's runs use: beta
    EvaluationBatch.objects.filter(pk=first.pk).update(finished_at=timezone.now())
    four_items.watch = True
    four_items.save(update_fields=["watch"])
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post(reverse("annotations:llm-settings"),
                             {"base_url": endpoints["beta"].base_url, "model": "beta-2"}, follow=True)
    assert "1 watched evaluation set is being evaluated again" in answer.content.decode()
    newest = EvaluationBatch.objects.exclude(pk=first.pk).get()
    assert (first.model, newest.model, newest.model_choice) == ("beta", "beta-2", "")
    EvaluationBatch.objects.filter(pk=newest.pk).update(finished_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=False):  # saved again unchanged: nothing more to run
        client.post(reverse("annotations:llm-settings"), {"base_url": endpoints["beta"].base_url, "model": "beta-2"})
    assert EvaluationBatch.objects.count() == 2
