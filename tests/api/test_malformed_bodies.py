"""Every API endpoint, sent every kind of bad body, answers 4xx with a message and never a 500.

The endpoints are read from the URL configuration, so a new one is swept too; path arguments are filled
with real objects of the user's so each request reaches its view's own checks.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from annotations.datasets import services
from annotations.models import AcceptanceRule, DatasetColumn, DatasetLevel
from bidsdata.archive import read_uploads
from tests.datasets.conftest import EVENTS, SIDECAR
from tests.support.reviews import make_session

pytestmark = pytest.mark.django_db

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
FIELDS = ("description", "files", "name", "schema_version", "concurrency", "ignore_existing_hed", "kind", "template",
          "hed_string", "hed", "verdict", "rating", "comment", "after", "level", "format", "draft", "options",
          "max_validation_attempts", "max_iterations", "run_assessment", "image", "task")
WRONG_TYPES = [{name: value for name in FIELDS} for value in (5, True, None, [1, 2], {"a": {"b": 1}}, "x" * 5000)]
BODIES = [
    ("", "application/json"),
    ("not json at all", "application/json"),
    ("{\"unclosed\": ", "application/json"),
    ("null", "application/json"),
    ("[1, 2, 3]", "application/json"),
    ("\"a string\"", "application/json"),
    ("[" * 10_000 + "]" * 10_000, "application/json"),
    ("{\"a\": " * 5_000 + "1" + "}" * 5_000, "application/json"),
    ("\xff\xfe garbage", "application/json"),
    ("--boundary\r\nnot a part\r\n", "multipart/form-data; boundary=boundary"),
    ("", "multipart/form-data"),
    ("a=%ZZ&&==", "application/x-www-form-urlencoded"),
    ("plain words", "text/plain"),
    *((json.dumps(body), "application/json") for body in WRONG_TYPES),
]


def _api_routes() -> list[str]:
    """Every route under /api/, as a pattern string with its converters."""
    found: list[str] = []

    def walk(patterns: list, prefix: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                found.append(prefix + str(entry.pattern))

    walk(get_resolver().url_patterns, "/")
    return [route for route in found if route.startswith("/api/")]


@pytest.fixture
def filled(user):
    files = read_uploads([("sub-01_task-faces_events.tsv", EVENTS.encode()),
                          ("task-faces_events.json", json.dumps(SIDECAR).encode())])
    project = services.import_dataset(user=user, files=files, name="tiny")
    values = {"uuid:pk": None, "int:column_id": DatasetColumn.objects.filter(task__project=project).first().pk,
              "int:level_id": DatasetLevel.objects.filter(column__task__project=project).first().pk,
              "int:rule_id": AcceptanceRule.objects.create(project=project, name="r", query="Event",
                                                           expect="none").pk}
    session = make_session(user)

    def fill(route: str) -> str:
        pk = project.pk if route.startswith("/api/datasets/") else session.pk
        return re.sub(r"<([^>]+)>", lambda m: str(pk if m.group(1) == "uuid:pk" else values[m.group(1)]), route)

    return fill


@override_settings(TASKS=DUMMY_TASKS, HEDIT_RUN_RATE="none")
def test_no_bad_body_on_any_endpoint_is_a_server_error(user, filled):
    api = APIClient(raise_request_exception=False)
    api.force_login(user)
    api.force_authenticate(user)
    routes = _api_routes()
    assert "/api/datasets/<uuid:pk>/levels/<int:level_id>/" in routes and "/api/validate/" in routes
    failures, statuses = [], Counter()
    for route in routes:
        url = filled(route)
        for method in ("post", "put", "patch", "delete"):
            for body, content_type in BODIES:
                cache.clear()  # no throttle may answer in place of the view
                response = api.generic(method.upper(), url, body, content_type=content_type)
                statuses[response.status_code] += 1
                if response.status_code >= 500:
                    failures.append(f"{method.upper()} {url} [{content_type}] {body[:40]!r}: {response.status_code}")
    assert failures == [], "\n".join(failures[:20])
    assert statuses[400] > 100, statuses  # the bodies reached the views' own checks, not only 401/405
