"""A dataset job whose language model fails (HTTP 500, a body nested 10,000 deep) falls back to the offline
annotator for each level, and says so, with the model's reason, on the project page and in the API: never a
plain ``done`` with no error, never a RecursionError, never levels left with no annotation."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotations.datasets import jobs, services
from annotations.datasets.jobs import run_dataset_job
from annotations.models import AnnotationSession, DatasetProject, JobStatus, SessionStatus
from annotations.runs.producer import OFFLINE_PRODUCER
from tests.support.fake_openai import FakeOpenAI, Reply

pytestmark = pytest.mark.django_db(transaction=True)

FAILURES = {"http-500": (Reply("upstream exploded", status=500), "answered HTTP 500: upstream exploded"),
            "deep-body": (Reply(raw=b'{"a": ' * 10_000 + b"1" + b"}" * 10_000),
                          "answered a body that cannot be read (nested too deep)")}


@pytest.fixture
def fake(settings) -> Iterator[FakeOpenAI]:
    model = FakeOpenAI().start()
    settings.HEDIT_LLM = {"BASE_URL": model.base_url, "API_KEY": "k", "MODEL": "m", "MAX_RETRIES": 0, "CACHE_TTL": 0}
    yield model
    model.stop()


async def _no_drafts(*_: object, **__: object) -> dict:
    return {}


@pytest.mark.parametrize("drafted", [True, False], ids=["column-drafts", "level-runs"])
@pytest.mark.parametrize(("failure", "reason"), FAILURES.values(), ids=FAILURES.keys())
def test_a_failing_model_is_named_on_the_project_and_in_the_api(user, small_files, fake, client, monkeypatch,
                                                                 failure, reason, drafted):
    if not drafted:  # each level's run meets the failing model itself
        monkeypatch.setattr(jobs, "column_drafts", _no_drafts)
    fake.script = [failure]
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    sessions = services.start_annotation(project, user=user, enqueue=False)
    asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], 2))
    project = DatasetProject.objects.get(pk=project.pk)
    note = (f"the language model failed for {len(sessions)} levels (the LLM endpoint {fake.base_url} {reason}); "
            "the offline annotator wrote them")
    assert project.status == JobStatus.DONE and project.error == note
    assert "RecursionError" not in project.error and "internal error" not in project.error
    for run in AnnotationSession.objects.filter(pk__in=[s.pk for s in sessions]):
        assert run.status == SessionStatus.SUCCEEDED and run.is_valid and run.final_annotation, run.error
        assert run.producer == OFFLINE_PRODUCER and run.error == ""
        assert any(reason in n and "the offline annotator wrote this annotation" in n for n in run.notes)
    api = APIClient()
    api.force_authenticate(user)
    assert api.get(f"/api/datasets/{project.pk}/").json()["error"] == note
    client.force_login(user)
    assert "the offline annotator wrote them" in client.get(
        reverse("annotations:dataset-detail", args=[project.pk])).content.decode()
