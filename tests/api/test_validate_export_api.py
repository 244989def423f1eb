"""/api/validate/, /api/export/, the OpenAPI schema and the docs page."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from tests.support.reviews import INVALID_HED, VALID_HED, make_session

pytestmark = pytest.mark.django_db


def body_of(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_validate_gives_the_issues(user, client_for):
    api = client_for(user)
    ok = api.post(reverse("api:validate"), {"hed": VALID_HED}, format="json")
    assert ok.status_code == 200 and ok.json()["valid"] is True and ok.json()["schema_version"] == "8.4.0"
    bad = api.post(reverse("api:validate"), {"hed": INVALID_HED, "schema_version": "8.3.0"}, format="json")
    body = bad.json()
    assert body["valid"] is False
    assert any(i["code"] == "TAG_INVALID" and i["severity"] == "error" and i["hint"] for i in body["issues"])


@pytest.mark.parametrize(("payload", "field"), [({}, "hed"), ({"hed": ""}, "hed"),
                                                ({"hed": VALID_HED, "schema_version": "9.9.9"}, "schema_version")])
def test_validate_bad_payload(user, payload, field, client_for):
    response = client_for(user).post(reverse("api:validate"), payload, format="json")
    assert response.status_code == 400 and field in response.json()


def test_validate_needs_a_login(client_for):
    assert client_for().post(reverse("api:validate"), {"hed": VALID_HED}, format="json").status_code == 401


def test_export_csv_has_only_visible_sessions(user, other_user, client_for):
    make_session(user, description="=HYPERLINK(\"http://evil\")")
    make_session(other_user, description="someone else's")
    response = client_for(user).get(reverse("api:export"), {"format": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(body_of(response))))
    assert [r["description"] for r in rows] == ["'=HYPERLINK(\"http://evil\")"]


def test_export_jsonl(user, client_for):
    make_session(user, description="A face appears")
    api = client_for(user)
    lines = body_of(api.get(reverse("api:export"), {"format": "jsonl"})).splitlines()
    assert json.loads(lines[0])["description"] == "A face appears"
    assert api.get(reverse("api:export"), {"format": "bids"}).status_code == 400  # sidecars: /api/datasets/


def test_export_with_filters(user, reviewer, client_for):
    make_session(user, description="kept", status="invalid", is_valid=False)
    make_session(user, description="dropped")
    rows = list(csv.DictReader(io.StringIO(body_of(
        client_for(user).get(reverse("api:export"), {"format": "csv", "status": "invalid"})))))
    assert [r["description"] for r in rows] == ["kept"]


@pytest.mark.parametrize("params", [{"format": "xml"}, {}, {"format": ""}])
def test_export_unknown_format_is_400(user, params, client_for):
    response = client_for(user).get(reverse("api:export"), params)
    assert response.status_code == 400 and "format" in response.json()


def test_export_bad_filter_is_400(user, client_for):
    response = client_for(user).get(reverse("api:export"), {"format": "csv", "min_rating": "9"})
    assert response.status_code == 400 and "min_rating" in response.json()


def test_export_needs_a_login(client_for):
    assert client_for().get(reverse("api:export"), {"format": "csv"}).status_code == 401


def test_openapi_schema_and_docs_page(client, user):
    schema = client.get(reverse("api:schema"), {"format": "json"})
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    for path in ("/api/sessions/", "/api/sessions/{id}/", "/api/sessions/{id}/reviews/", "/api/validate/",
                 "/api/export/"):
        assert path in paths
    assert "post" in paths["/api/sessions/"] and "get" in paths["/api/sessions/"]
    assert client.get(reverse("api:docs")).status_code == 302  # the docs page is for those logged in
    client.force_login(user)
    docs = client.get(reverse("api:docs"))
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/api/sessions/{id}/reviews/" in html and "Review a session (reviewers)" in html
    # Nothing to fetch from a CDN: the only scripts are the site's own static files.
    assert all(src.startswith("/static/") for src in re.findall(r'<script[^>]*src="([^"]+)"', html))
    assert len(re.findall(r"<script", html)) == len(re.findall(r'<script[^>]*src="', html))
