"""Projects with many levels: pages read them in a fixed number of queries, page them, and never sort the
stored sidecar JSON (a sidecar declaring 100,000 levels once made SQLite's sort file fill the disk)."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotations.datasets import services
from annotations.datasets.selectors import level_states
from bidsdata.archive import read_uploads

pytestmark = pytest.mark.django_db

PADDING = "x" * 200_000  # a large uploaded sidecar: what must never ride through a sort


def _project(user, levels: int, *, name: str = "big"):
    sidecar = {"code": {"Description": "A trigger code.",
                        "Levels": {f"c{i:04d}": f"Trigger code {i}." for i in range(levels)}},
               "notes": {"Description": PADDING}}
    events = "onset\tduration\tcode\n" + "".join(f"{i}.0\tn/a\tc{i:04d}\n" for i in range(min(levels, 50)))
    files = read_uploads([("sub-01_task-x_events.tsv", events.encode()),
                          ("task-x_events.json", json.dumps(sidecar).encode())])
    return services.import_dataset(user=user, files=files, name=name)


def _sorted_with_sidecar(queries: list[dict]) -> list[str]:
    return [q["sql"] for q in queries if "original_sidecar" in q["sql"] and "ORDER BY" in q["sql"].upper()]


def test_level_states_never_sort_the_stored_sidecar(user):
    project = _project(user, 300)
    with CaptureQueriesContext(connection) as captured:
        states = level_states(project)
    assert len(states) == 300
    assert [s.level.value for s in states[:2]] == ["c0000", "c0001"]
    assert states[0].level.column.task.name == "x"
    assert _sorted_with_sidecar(captured.captured_queries) == []


def _queries(client, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    assert _sorted_with_sidecar(captured.captured_queries) == []
    return len(captured.captured_queries), response.content.decode()


def test_the_project_page_reads_a_fixed_number_of_queries_and_pages_its_levels(client, user):
    client.force_login(user)
    small, big = _project(user, 20, name="small"), _project(user, 450, name="big")
    small_count, _ = _queries(client, small.get_absolute_url())
    big_count, page = _queries(client, big.get_absolute_url())
    assert big_count == small_count
    assert len(re.findall(r'<tr id="level-', page)) == 50  # the task's first page
    assert "Levels 1\u201350 of 450" in page and 'rel="next"' in page
    _, last = _queries(client, f"{big.get_absolute_url()}?task=x&page=9")
    assert len(re.findall(r'<tr id="level-', last)) == 50 and "Levels 401\u2013450 of 450" in last


def test_the_api_reads_a_project_and_the_list_in_a_fixed_number_of_queries(user):
    api = APIClient()
    api.force_authenticate(user)
    first = _project(user, 30, name="first")
    _queries(api, f"/api/datasets/{first.pk}/")  # once for what a process caches (content types, schemas)
    one, _ = _queries(api, f"/api/datasets/{first.pk}/")
    list_one, _ = _queries(api, "/api/datasets/")
    big = _project(user, 400, name="second")
    for i in range(3):
        _project(user, 10, name=f"more {i}")
    many, body = _queries(api, f"/api/datasets/{big.pk}/")
    assert many == one
    columns = {c["name"]: c for c in json.loads(body)["tasks"][0]["columns"]}
    assert len(columns["code"]["levels"]) == 400
    list_many, listed = _queries(api, "/api/datasets/")
    assert list_many == list_one
    assert {p["name"]: p["progress"]["total"] for p in json.loads(listed)["results"]}["second"] == 400
