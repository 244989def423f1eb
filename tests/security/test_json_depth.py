"""Finding 7: deeply nested JSON is a 400, not a 500 from a RecursionError."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotations.api.parsers import json_depth

pytestmark = pytest.mark.django_db
DEEP = '{"description": "x", "options": ' + "[" * 50_000 + "]" * 50_000 + "}"


@pytest.fixture
def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("url", ["/api/sessions/", "/api/validate/"])
def test_deep_json_is_a_400(api, url, no_runs):
    response = api.post(url, DEEP, content_type="application/json")
    assert response.status_code == 400
    assert "nests deeper than 32" in response.json()["detail"]


def test_moderate_nesting_past_the_limit_is_refused(api, no_runs):
    body = '{"description": "x", "options": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}"
    assert api.post("/api/sessions/", body, content_type="application/json").status_code == 400


def test_ordinary_json_still_works(api):
    response = api.post("/api/validate/", '{"hed": "Red, Circle"}', content_type="application/json")
    assert response.status_code == 200 and response.json()["valid"] is True


def test_depth_ignores_brackets_inside_strings():
    assert json_depth('{"a": "[[[{{{", "b": [1, [2]]}') == 3
    assert json_depth('"\\"[["') == 0
