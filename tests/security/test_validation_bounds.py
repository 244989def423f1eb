"""Finding 9: validation is bounded in size and time, and throttled per user."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agents.validation import validate_hed
from agents.validation.agent import MAX_ISSUES, MAX_TAGS

pytestmark = pytest.mark.django_db


def bad_tags(n: int) -> str:
    return ",".join(f"Bt{i}" for i in range(n))


def test_thousands_of_bad_tags_are_bounded_work():
    # The time this saves (12.9 s -> 0.01 s for 2,200 bad tags) is a benchmark figure, not a test.
    for n in (2200, MAX_TAGS):
        issues = validate_hed(bad_tags(n), "8.4.0")
        assert len(issues) <= MAX_ISSUES + 1
    assert validate_hed(bad_tags(2200), "8.4.0")[0].code == "TOO_MANY_TAGS"
    assert validate_hed(bad_tags(MAX_TAGS), "8.4.0")[-1].code == "TOO_MANY_ISSUES"


def test_the_page_endpoint_is_throttled_per_user(client, user, other_user, settings):
    settings.HEDIT_VALIDATE_RATE = "2/minute"
    client.force_login(user)
    codes = [client.post("/validate/check/", {"hed": "Red", "schema_version": "8.4.0"}).status_code
             for _ in range(3)]
    assert codes == [200, 200, 429]
    client.force_login(other_user)
    assert client.post("/validate/check/", {"hed": "Red", "schema_version": "8.4.0"}).status_code == 200


def test_the_api_is_throttled_per_user(user, settings):
    settings.HEDIT_VALIDATE_RATE = "2/minute"
    api = APIClient()
    api.force_authenticate(user)
    codes = [api.post("/api/validate/", {"hed": "Red"}, format="json").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
