"""The API: search (counts per task and file, paged rows, TSV), design zip, summary and acceptance rules, with
hedtools' answers; a malformed query is a 400 with hedtools' message and position; another user's project is
a 404; queries are rate limited."""

from __future__ import annotations

import io
import zipfile
from unittest.mock import ANY

import pytest
from django.urls import reverse

from tests.bidsdata.usage.hedtools_loop import bare_search
from tests.usage.test_commands import QUERIES

pytestmark = pytest.mark.django_db


def _url(name, project, *args):
    return reverse(f"api:{name}", args=[project.pk, *args])


def test_search_answers_counts_and_a_page_of_rows(api, user, project, made_up):
    answer = api(user).get(_url("dataset-search", project), {"q": QUERIES})
    assert answer.status_code == 200
    body = answer.json()
    expected = bare_search(made_up, "demo", QUERIES)
    assert body["queries"] == QUERIES
    assert body["options"] == {"include_context": True, "replace_defs": False, "remove_types": []}
    task = body["tasks"][0]
    assert task["task"] == "demo" and task["files"] == 3
    assert task["rows"] == sum(len(rows) for rows in expected.values())
    assert task["matches"] == {q: sum(r[i] for rows in expected.values() for r in rows)
                               for i, q in enumerate(QUERIES)}
    assert [f["file"] for f in task["per_file"]] == list(expected)
    rows = body["rows"]
    assert rows["task"] == "demo" and rows["page"] == 1 and rows["count"] == len(rows["results"])
    first = rows["results"][0]
    assert set(first) == {"file", "row", "onset", "answers", "hed"} and len(first["answers"]) == len(QUERIES)
    tsv = api(user).get(_url("dataset-search", project), {"q": "Sensory-event", "output": "tsv", "task": "demo"})
    assert tsv.status_code == 200
    assert b"".join(tsv.streaming_content).decode().splitlines()[0] == "file\trow\tonset\tSensory-event\thed"


def test_the_toggles_change_the_assembly(api, user, project, made_up):
    answer = api(user).get(_url("dataset-search", project), {
        "q": "Def/Go-cond", "context": "false", "expand_defs": "true", "remove_types": "Condition-variable"})
    expected = bare_search(made_up, "demo", ["Def/Go-cond"], include_context=False, replace_defs=True,
                           remove_types=("Condition-variable",))
    assert answer.json()["tasks"][0]["matches"]["Def/Go-cond"] == sum(r[0] for rows in expected.values() for r in rows)


@pytest.mark.parametrize(("params", "field", "message"), [
    ({"q": "Event &&"}, "q", "query 1 'Event &&' cannot be parsed at character 9: Parse error in get next token"),
    ({"q": "x" * 2001}, "q", "a query is at most 2,000 characters, not 2,001"),
    ({}, "q", "give a HED query, e.g. Sensory-event && Visual-presentation"),
    ({"q": "Event", "remove_types": "Conditions"}, "remove_types", "unknown type 'Conditions'"),
    ({"q": "Event", "context": "maybe"}, "context", "context must be true or false"),
    ({"q": "Event", "page": "0"}, "page", "page must be 1 or more"),
])
def test_bad_requests_name_the_field(api, user, project, params, field, message):
    answer = api(user).get(_url("dataset-search", project), params)
    assert answer.status_code == 400
    assert answer.json()[field][0].startswith(message)


def test_another_users_project_is_a_404(api, other_user, project):
    client = api(other_user)
    for name, args in [("dataset-search", []), ("dataset-design", []), ("dataset-summary", []),
                       ("dataset-rules", [])]:
        assert client.get(_url(name, project, *args), {"q": "Event"}).status_code == 404, name
    assert client.post(_url("dataset-rules", project), {"query": "@Event", "expect": "none"},
                       format="json").status_code == 404


def test_design_zip_and_summary(api, user, project):
    packed = api(user).get(_url("dataset-design", project), {"type": "Condition-variable"})
    assert packed.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(packed.streaming_content))) as archive:
        assert "sub-01_task-demo_run-2_design.tsv" in archive.namelist()
    assert api(user).get(_url("dataset-design", project), {"encoding": "dummy"}).status_code == 400
    summary = api(user).get(_url("dataset-summary", project)).json()["tasks"]["demo"]
    assert summary["files"] == 3 and summary["groups"][0]["title"] == "Sensory events"


def test_rules_crud_with_their_verdicts(api, user, reviewer, project):
    client = api(user)
    made = client.post(_url("dataset-rules", project), {"name": "Event types", "query": "@Event", "expect": "none"},
                       format="json")
    assert made.status_code == 201
    rule = made.json()
    assert rule["verdicts"]["demo"]["passed"] is True and rule["verdicts"]["demo"]["matches"] == 0
    some = client.post(_url("dataset-rules", project), {"query": "Blue", "expect": "some"}, format="json").json()
    assert some["verdicts"]["demo"]["passed"] is False and some["name"] == "Blue"
    level = client.post(_url("dataset-rules", project), {"query": "Def/Halt-cond", "expect": "level_rows",
                                                        "column": "trial_kind", "level": "halt",
                                                        "replace_defs": False}, format="json")
    assert level.json()["verdicts"]["demo"] == {"passed": True, "matches": 5, "expected": 5, "digest": ANY,
                                                "message": "5 row(s) match; level 'halt' has 5"}
    bad = client.post(_url("dataset-rules", project), {"query": "Red &&", "expect": "none"}, format="json")
    assert bad.status_code == 400 and "cannot be parsed" in bad.json()["query"][0]
    missing = client.post(_url("dataset-rules", project), {"query": "Red", "expect": "level_rows",
                                                          "column": "trial_kind", "level": "nothing"}, format="json")
    assert missing.status_code == 400 and missing.json()["level"]
    changed = client.patch(_url("dataset-rule", project, some["id"]), {"query": "Red"}, format="json")
    assert changed.status_code == 200 and changed.json()["verdicts"]["demo"]["passed"] is True
    assert len(client.get(_url("dataset-rules", project)).json()) == 3
    assert api(reviewer).get(_url("dataset-rules", project)).status_code == 200
    assert api(reviewer).delete(_url("dataset-rule", project, some["id"])).status_code == 403
    assert client.delete(_url("dataset-rule", project, some["id"])).status_code == 204


def test_queries_are_rate_limited(api, user, project, settings):
    settings.HEDIT_QUERY_RATE = "2/minute"
    client = api(user)
    assert client.get(_url("dataset-search", project), {"q": "Event"}).status_code == 200
    assert client.get(_url("dataset-search", project), {"q": "Red"}).status_code == 200
    third = client.get(_url("dataset-search", project), {"q": "Blue"})
    assert third.status_code == 429 and int(third["Retry-After"]) >= 1
