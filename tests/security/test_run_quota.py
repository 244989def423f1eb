"""Finding 6: one per-user run quota for the form, Re-run, the API and dataset jobs, shown when hit."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotations.errors import QuotaExceeded as RunQuotaExceeded
from annotations.limits import check_run_quota, parse_rate
from annotations.models import AnnotationSession, SessionStatus

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def two_per_hour(no_runs, settings):
    settings.HEDIT_RUN_RATE = "2/hour"


def annotate(client, text: str):
    return client.post(reverse("annotations:annotate"), {"description": text, "schema_version": "8.4.0",
                                                         "max_validation_attempts": 3})


def test_the_form_shares_the_quota(client, user, two_per_hour):
    client.force_login(user)
    assert [annotate(client, f"A tone {i}.").status_code for i in range(2)] == [302, 302]
    refused = annotate(client, "One more tone.")
    assert refused.status_code == 429
    assert "the limit is 2 per hour" in refused.content.decode()
    assert AnnotationSession.objects.filter(user=user).count() == 2


def test_rerun_shares_the_quota(client, user, two_per_hour):
    client.force_login(user)
    annotate(client, "A tone.")
    first = AnnotationSession.objects.get(user=user)
    AnnotationSession.objects.filter(pk=first.pk).update(status=SessionStatus.SUCCEEDED)
    rerun = reverse("annotations:session-rerun", args=[first.pk])
    assert client.post(rerun).status_code == 302
    page = client.post(rerun, follow=True).content.decode()
    assert "the limit is 2 per hour" in page
    assert AnnotationSession.objects.filter(user=user).count() == 2


def test_the_api_answers_429_with_retry_after(user, other_user, two_per_hour):
    api = APIClient()
    api.force_authenticate(user)
    url = reverse("api:session-list")
    codes = [api.post(url, {"description": f"event {i}"}, format="json").status_code for i in range(2)]
    refused = api.post(url, {"description": "one more"}, format="json")
    assert codes == [201, 201] and refused.status_code == 429
    assert "the limit is 2 per hour" in refused.json()["detail"] and int(refused["Retry-After"]) > 0
    # The pages and the API count the same runs; other users have their own quota.
    other = APIClient()
    other.force_authenticate(other_user)
    assert other.post(url, {"description": "mine"}, format="json").status_code == 201


def test_dataset_jobs_can_check_a_batch(user, settings):
    settings.HEDIT_RUN_RATE = "10/day"
    check_run_quota(user, count=10)
    with pytest.raises(RunQuotaExceeded, match="more than the limit"):
        check_run_quota(user, count=11)


def test_rates_parse_and_can_be_switched_off(settings, user):
    assert parse_rate("60/hour").seconds == 3600 and parse_rate("10/5m").seconds == 300
    assert parse_rate("none") is None
    settings.HEDIT_RUN_RATE = "none"
    check_run_quota(user, count=10_000)


def test_the_quota_is_documented(client, user):
    readme = (ROOT / "README.md").read_text()
    assert "HEDIT_RUN_RATE" in readme and "60/hour" in readme
    client.force_login(user)
    docs = client.get("/api/docs/").content.decode()
    assert "Run quota" in docs and "60/hour" in docs and "429" in docs
