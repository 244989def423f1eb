"""Issue 25, finding 1: Re-run from a run's page counts against the quota of the kind of run it starts.

A dataset level's run re-run counts against ``HEDIT_DATASET_RATE`` (with that quota spent, re-runs went
through), an ordinary run against ``HEDIT_RUN_RATE``.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.datasets import services
from annotations.models import AnnotationSession, SessionStatus
from tests.datasets.lab import lab_project, level

pytestmark = pytest.mark.django_db


@pytest.fixture
def level_run(user, no_runs):
    project = lab_project(user)
    [run] = services.create_level_sessions(project, [level(project, "trial_type", "press")], user=user)
    AnnotationSession.objects.filter(pk=run.pk).update(status=SessionStatus.SUCCEEDED)
    return run


def test_rerunning_a_level_run_counts_against_the_dataset_quota(client, user, level_run, settings):
    settings.HEDIT_DATASET_RATE = "2/day"
    settings.HEDIT_RUN_RATE = "100/hour"  # plenty: a level's run must not slip through the run quota
    client.force_login(user)
    rerun = reverse("annotations:session-rerun", args=[level_run.pk])
    assert client.post(rerun).status_code == 302  # the level run itself and this one: 2 of 2
    pages = [client.post(rerun, follow=True).content.decode() for _ in range(3)]
    assert all("dataset limit of 2 per day (HEDIT_DATASET_RATE)" in page for page in pages)
    assert AnnotationSession.objects.filter(dataset_level=level_run.dataset_level).count() == 2


def test_a_level_rerun_does_not_use_up_the_run_quota(client, user, level_run, settings):
    settings.HEDIT_DATASET_RATE = "100/day"
    settings.HEDIT_RUN_RATE = "1/hour"
    client.force_login(user)
    rerun = reverse("annotations:session-rerun", args=[level_run.pk])
    assert [client.post(rerun).status_code for _ in range(2)] == [302, 302]
    assert client.post(reverse("annotations:annotate"), {"description": "A tone plays.", "schema_version": "8.4.0",
                                                         "max_validation_attempts": 3}).status_code == 302


def test_an_ordinary_rerun_counts_against_the_run_quota(client, user, no_runs, settings):
    settings.HEDIT_RUN_RATE = "1/hour"
    settings.HEDIT_DATASET_RATE = "100/day"
    run = AnnotationSession.objects.create(user=user, description="A tone plays.", status=SessionStatus.SUCCEEDED)
    client.force_login(user)
    page = client.post(reverse("annotations:session-rerun", args=[run.pk]), follow=True).content.decode()
    assert "the limit is 1 per hour" in page
    assert AnnotationSession.objects.count() == 1
