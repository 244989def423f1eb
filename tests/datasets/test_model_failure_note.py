"""A dataset job whose language model fails (HTTP 500, a body nested 10,000 deep) says so, with the model's
reason, on the project page and in the API: never a plain ``done`` with no error, never a RecursionError."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotations.datasets import services
from annotations.datasets.jobs import run_dataset_job
from annotations.models import DatasetProject
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


@pytest.mark.parametrize(("failure", "reason"), FAILURES.values(), ids=FAILURES.keys())
def test_a_failing_model_is_named_on_the_project_and_in_the_api(user, small_files, fake, client, failure, reason):
    fake.script = [failure]
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    sessions = services.start_annotation(project, user=user, enqueue=False)
    asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], 2))
    project = DatasetProject.objects.get(pk=project.pk)
    assert f"the LLM endpoint {fake.base_url} {reason}" in project.error
    assert "RecursionError" not in project.error and "internal error" not in project.error
    api = APIClient()
    api.force_authenticate(user)
    assert reason in api.get(f"/api/datasets/{project.pk}/").json()["error"]
    client.force_login(user)
    assert reason in client.get(reverse("annotations:dataset-detail", args=[project.pk])).content.decode()
