"""The regression watch: a watched set runs again when its model's prompts change, and the table flags a fall in
F1 larger than its interval."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.evaluation.batches import start_evaluation
from annotations.evaluation.sets import gold_set
from annotations.evaluation.watch import rerun_changed, watch_of
from annotations.models import EvaluationBatch
from tests.evaluation.conftest import USAGE, _kind, alpha_reply, gold_csv, run_to_end
from tests.support.fake_openai import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def worse_reply(request):
    """alpha after its prompts changed: only the event type, every time."""
    if _kind(request) == "annotation":
        return Reply("Sensory-event", **USAGE)
    return alpha_reply(request)


def test_a_changed_prompt_reruns_the_watched_set_and_a_fall_beyond_the_interval_is_flagged(
        endpoints, user, client, monkeypatch):
    evaluation_set = gold_set(user, "made-up.csv", gold_csv())
    first = start_evaluation(evaluation_set, user=user, model="alpha")
    run_to_end(first)
    steady = watch_of(evaluation_set)
    assert steady.latest is not None and steady.previous is None and not steady.changed and not steady.fell
    assert rerun_changed(user) == []  # not watched, and nothing changed

    evaluation_set.watch = True
    evaluation_set.save(update_fields=["watch"])
    monkeypatch.setattr("agents.llm.configuration.prompt_version", lambda: "pchanged")
    assert watch_of(evaluation_set).now.prompt_version == "pchanged"
    endpoints["alpha"].script = [worse_reply]
    [second] = rerun_changed(user)
    assert (second.model_choice, second.prompt_version) == ("alpha", "pchanged")
    run_to_end(second)

    watched = watch_of(evaluation_set)
    assert watched.latest.batch == second and watched.previous.batch == first and not watched.changed
    # Per item, (tp, fp, fn) before -> after: g1 (4,0,0)->(1,0,3), g2 (3,0,1)->(0,1,4), g3 (2,0,1)->(1,0,2),
    # g4 (3,0,2)->(1,0,4): micro F1 24/28 -> 6/20; every item is worse, so every resample falls.
    before, after = 2 * 12 / (2 * 12 + 0 + 4), 2 * 3 / (2 * 3 + 1 + 13)
    assert watched.paired == 4 and watched.change == pytest.approx(after - before)
    assert watched.interval.high < 0 and watched.fell
    assert rerun_changed(user) == [] and EvaluationBatch.objects.count() == 2  # up to date now

    client.force_login(user)
    html = client.get(reverse("annotations:evaluation")).content.decode()
    row = html[html.index(f'data-set="{evaluation_set.pk}"'):]
    assert f"{after - before:+.3f}" in row and '<span class="badge badge--failed">fell</span>' in row
