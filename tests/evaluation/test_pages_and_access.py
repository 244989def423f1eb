"""The evaluation page, its downloads and ``GET /api/evaluation/``: another user's runs never enter a user's
table, another user's project is a 404, columns sort, and the page speaks only in figures it computed."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

from annotations.models import DatasetColumn, DatasetLevel, DatasetProject, DatasetTask
from annotations.review.services import submit_review
from tests.support.reviews import make_session

pytestmark = pytest.mark.django_db

MINE = {"llm_provider": "lab.example", "llm_model": "mine-model", "llm_constraint": "none", "prompt_version": "p1"}
THEIRS = {"llm_provider": "elsewhere.example", "llm_model": "their-model", "llm_constraint": "none",
          "prompt_version": "p1"}


def _level(project: DatasetProject) -> DatasetLevel:
    task = DatasetTask.objects.create(project=project, name="t", sidecar_name="task-t_events.json")
    column = DatasetColumn.objects.create(task=task, name="kind", kind="categorical", detected_kind="categorical")
    return DatasetLevel.objects.create(column=column, value="a")


@pytest.fixture
def runs(user, other_user, reviewer):
    mine = [make_session(user, **MINE), make_session(user, annotation="Sensory-event", **MINE)]
    submit_review(mine[0], reviewer, rating=5, verdict="accept")
    theirs_project = DatasetProject.objects.create(user=other_user, name="Their lab", schema_version="8.4.0")
    make_session(other_user, dataset_level=_level(theirs_project), **THEIRS)
    make_session(other_user, **THEIRS)
    return {"theirs_project": theirs_project}


def _models(response) -> set[str]:
    return {m["model"] for m in response.json()["models"]}


def test_a_users_table_holds_their_runs_alone_and_a_reviewer_sees_everyones(client, user, reviewer, runs):
    client.force_login(user)
    page = client.get(reverse("annotations:evaluation"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "mine-model" in html and "their-model" not in html
    assert _models(client.get("/api/evaluation/")) == {"mine-model"}
    client.force_login(reviewer)
    assert _models(client.get("/api/evaluation/")) == {"mine-model", "their-model"}
    project = runs["theirs_project"]
    assert _models(client.get("/api/evaluation/", {"project": str(project.pk)})) == {"their-model"}


def test_another_users_project_or_set_is_a_404(client, user, runs):
    client.force_login(user)
    project = str(runs["theirs_project"].pk)
    assert client.get(reverse("annotations:evaluation"), {"project": project}).status_code == 404
    assert client.get("/api/evaluation/", {"project": project}).status_code == 404
    assert client.get(reverse("annotations:evaluation-download", args=["csv"]), {"project": project}).status_code == 404
    assert client.get("/api/evaluation/", {"project": "not-a-uuid"}).status_code == 404
    assert client.get("/api/evaluation/", {"set": "00000000-0000-0000-0000-000000000000"}).status_code == 404


def test_a_bad_filter_is_a_400_naming_it(client, user, runs):
    client.force_login(user)
    answer = client.get("/api/evaluation/", {"date_from": "yesterday"})
    assert answer.status_code == 400 and "date_from" in answer.json()
    page = client.get(reverse("annotations:evaluation"), {"date_to": "2025-13-40"})
    assert page.status_code == 400 and "is not a date" in page.content.decode()


def test_the_api_answers_a_token_and_refuses_anonymous(client, user, runs):
    assert client.get("/api/evaluation/").status_code in (401, 403)
    token = Token.objects.create(user=user)
    found = client.get("/api/evaluation/", HTTP_AUTHORIZATION=f"Token {token.key}").json()
    [model] = found["models"]
    assert (model["runs"], model["review"]["n"], model["review"]["accepted"]) == (2, 1, 1.0)
    assert model["tags"]["n"] == 1 and model["tags"]["f1"] == 1.0  # the accepted run's own annotation
    assert found["scope"]["label"] == "every run you may see"


def test_downloads_carry_the_same_figures(client, user, runs):
    client.force_login(user)
    answer = client.get(reverse("annotations:evaluation-download", args=["csv"]))
    assert answer["Content-Disposition"].startswith("attachment") and answer["Content-Type"].startswith("text/csv")
    [row] = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert (row["model"], row["runs"], row["reviewed"], row["accepted"], row["tags_f1"]) == (
        "mine-model", "2", "1", "1.0000", "1.0000")
    assert row["final_valid"] == "1.0000" and row["provider"] == "lab.example"
    as_json = json.loads(client.get(reverse("annotations:evaluation-download", args=["json"])).content)
    assert as_json == client.get("/api/evaluation/").json()


def test_columns_sort_both_ways_and_the_page_keeps_the_scope(client, reviewer, runs):
    client.force_login(reviewer)
    url = reverse("annotations:evaluation")
    def table(query):
        html = client.get(url, query).content.decode()
        return html[html.index('id="evaluation-table"'):]

    by_name = table({"sort": "model", "dir": "asc"})
    assert by_name.index("mine-model") < by_name.index("their-model")
    reverse_name = table({"sort": "model", "dir": "desc"})
    assert reverse_name.index("their-model") < reverse_name.index("mine-model")
    by_runs = table({"sort": "f1", "dir": "asc"})  # their-model has no F1: last either way
    assert by_runs.index("mine-model") < by_runs.index("their-model")
    # The active header links to the other direction, keeping the scope.
    scoped = client.get(url, {"sort": "runs", "dir": "desc", "evaluations": "hide"}).content.decode()
    assert 'href="?evaluations=hide&amp;sort=runs&amp;dir=asc"' in scoped and 'aria-sort="descending"' in scoped


def test_the_chart_has_a_point_per_configuration_with_an_f1(client, reviewer, runs):
    client.force_login(reviewer)
    html = client.get(reverse("annotations:evaluation")).content.decode()
    chart = html[html.index('<svg class="chart"'):html.index("</svg>")]
    assert chart.count("<circle") == 1  # only mine-model has a run with gold (its accepted run)
    assert "mine-model via lab.example, free decoding, prompts p1, HED 8.4.0: F1 1.000 (n 1), $0 per run" in chart
    assert "style=" not in html.split("<main", 1)[1]  # the Content-Security-Policy refuses inline styles


def test_the_page_starts_an_evaluation_of_an_uploaded_csv_and_refuses_a_bad_one(
        client, user, other_user, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotations.models import EvaluationBatch, EvaluationSet
    from tests.evaluation.conftest import gold_csv

    client.force_login(user)
    start = reverse("annotations:evaluation-start")
    bad = SimpleUploadedFile("bad.csv", b"id,text\n1,A tone.\n", content_type="text/csv")
    refused = client.post(start, {"source": "upload", "file": bad, "model": "offline", "schema_version": "8.4.0"})
    assert refused.status_code == 400 and "needs the columns description and hed" in refused.content.decode()
    assert not EvaluationSet.objects.exists()

    good = SimpleUploadedFile("lab.csv", gold_csv().encode(), content_type="text/csv")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = client.post(start, {"source": "upload", "file": good, "model": "offline", "schema_version": "8.4.0",
                                     "watch": "on"}, follow=True)
    batch = EvaluationBatch.objects.get()
    assert (batch.set.name, batch.total, batch.model, batch.set.watch, len(queued)) == (
        "lab.csv", 4, "offline annotator", True, 2)
    assert "Evaluating lab.csv with offline annotator: 4 runs, 2 at a time." in answer.content.decode()

    client.force_login(other_user)  # someone else's evaluation and set are none of theirs
    assert client.post(reverse("annotations:evaluation-cancel", args=[batch.pk])).status_code == 404
    assert client.post(reverse("annotations:evaluation-watch", args=[batch.set.pk])).status_code == 404
    assert client.get(reverse("annotations:evaluation"), {"set": str(batch.set.pk)}).status_code == 404
    client.force_login(user)
    client.post(reverse("annotations:evaluation-cancel", args=[batch.pk]))
    batch.refresh_from_db()
    assert batch.status == "cancelled"
