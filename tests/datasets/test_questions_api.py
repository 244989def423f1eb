"""Open questions through the REST API and the command line: list, answer, the quality figures, the lab's table."""

from __future__ import annotations

import contextlib
import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from annotations.datasets.results import refresh_project
from annotations.models import AnnotationSession, DatasetColumn, DatasetProject
from tests.datasets.lab import EVENTS, QUESTIONS, SIDECAR, lab_project, level

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def project(user):
    return lab_project(user)


def _url(project) -> str:
    return f"/api/datasets/{project.pk}/questions/"


@pytest.mark.django_db
def test_get_lists_the_open_questions_with_their_level_ids(api, project):
    response = api.get(_url(project))
    assert response.status_code == 200
    listed = response.json()["results"]
    assert [(q["column"], q["level"], q["text"]) for q in listed] == QUESTIONS
    assert listed[0]["level_id"] == level(project, "trial_type", "blink_twice").pk and listed[0]["task"] == "stars"
    assert listed[2]["level_id"] is None and listed[2]["column_id"] == DatasetColumn.objects.get(name="stage").pk


@pytest.mark.django_db
def test_post_answers_one_by_level_id_and_queues_its_run(api, project, settings):
    settings.TASKS = DUMMY_TASKS
    six = level(project, "value", "6")
    response = api.post(_url(project), {"level_id": six.pk, "answer": "A red circle appears."}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    session = AnnotationSession.objects.get()
    assert body["session"] == str(session.pk) and body["status"] == "queued" and session.dataset_level == six
    assert body["description"] == "A red circle appears." and body["question"]["level_id"] == six.pk
    assert [q["level"] for q in api.get(_url(project)).json()["results"]] == ["blink_twice", None, "early", "late"]


@pytest.mark.django_db
def test_post_answers_by_column_and_level_names(api, project, settings):
    settings.TASKS = DUMMY_TASKS
    by_name = api.post(_url(project), {"column": "stage", "level": "late", "answer": "The second half."},
                       format="json")
    assert by_name.status_code == 202 and level(project, "stage", "late").description == "The second half."
    column = api.post(_url(project), {"column": "stage", "answer": "Which half of the session."}, format="json")
    assert column.status_code == 200 and column.json()["session"] is None
    assert DatasetColumn.objects.get(name="stage").description == "Which half of the session."


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "field"), [
    ({}, "answer"),
    ({"answer": "x"}, "level_id"),
    ({"level_id": "six", "answer": "x"}, "level_id"),
    ({"column": "stage", "level": "late"}, "answer"),
    ({"column": "stage", "level": "late", "answer": "   "}, "answer"),
    ({"column": "stage", "level": "late", "answer": "x" * 2001}, "answer"),
    ({"level_id": 1, "column": "stage", "answer": "x"}, "level_id"),
])
def test_bad_input_is_a_400_naming_the_field(api, project, body, field):
    response = api.post(_url(project), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content
    assert not AnnotationSession.objects.exists()


@pytest.mark.django_db
def test_unknown_levels_and_columns_are_404_and_other_users_see_nothing(api, project, other_user):
    assert api.post(_url(project), {"level_id": 999999, "answer": "x"}, format="json").status_code == 404
    assert api.post(_url(project), {"column": "nope", "answer": "x"}, format="json").status_code == 404
    unknown_level = {"column": "stage", "level": "nope", "answer": "x"}
    assert api.post(_url(project), unknown_level, format="json").status_code == 404
    stranger = APIClient()
    stranger.force_authenticate(other_user)
    assert stranger.get(_url(project)).status_code == 404
    six = level(project, "value", "6")
    assert stranger.post(_url(project), {"level_id": six.pk, "answer": "x"}, format="json").status_code == 404
    assert APIClient().get(_url(project)).status_code in (401, 403)
    assert level(project, "value", "6").description == "Trigger 6"


@pytest.mark.django_db
def test_the_detail_gives_the_quality_line_when_asked(api, project):
    plain = api.get(f"/api/datasets/{project.pk}/").json()
    assert plain["tasks"][0]["quality"] is None
    asked = api.get(f"/api/datasets/{project.pk}/?quality=1").json()["tasks"][0]["quality"]
    assert asked["validating"] is True and "rows" not in asked  # nothing stored yet: figures come from the job
    refresh_project(project)
    task = api.get(f"/api/datasets/{project.pk}/?quality=1").json()["tasks"][0]
    figures = task["quality"]
    assert figures["rows"] == 4 and figures["files"] == figures["files_total"] == 1
    assert figures["open_questions"] == len(QUESTIONS) and figures["valid"] is False  # nothing annotated yet
    assert figures["validating"] is False
    assert set(figures) >= {"rows_ok", "rows_ok_share", "levels", "levels_distinct", "distinct_share", "factors"}
    levels = {lv["value"]: lv["status"] for c in task["columns"] for lv in c["levels"]}
    assert levels["6"] == "needs_description" and levels["show_star"] == "pending"
    assert api.get(f"/api/datasets/{project.pk}/?quality=maybe").status_code == 400


# --- the command line ----------------------------------------------------------------------------


def _folder(tmp_path):
    folder = tmp_path / "stars"
    folder.mkdir()
    (folder / "dataset_description.json").write_text(json.dumps({"Name": "stars", "HEDVersion": "8.4.0"}))
    (folder / "task-stars_events.json").write_text(json.dumps(SIDECAR))
    (folder / "sub-01").mkdir()
    (folder / "sub-01" / "sub-01_task-stars_events.tsv").write_text(EVENTS)
    return folder


def _annotate(*args: str) -> None:
    """The command, whatever its exit status (it exits 1 when a sidecar does not validate: not what is tested)."""
    with contextlib.suppress(SystemExit):
        call_command("annotate_dataset", *args)


def _rows(path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text()), delimiter="\t"))


@pytest.mark.django_db(transaction=True)
def test_the_command_writes_the_questions_and_reads_the_answers_back(tmp_path, capsys):
    folder, questions = _folder(tmp_path), tmp_path / "questions.tsv"
    _annotate(str(folder), "--out", str(tmp_path / "out"), "--questions", str(questions), "--json")
    report = json.loads(capsys.readouterr().out)
    # Every row of the table: four levels' questions and the column's own, as the page and the API count them.
    assert report["tasks"][0]["open_questions"] == len(QUESTIONS) == 5
    rows = _rows(questions)
    assert [(r["column"], r["level"], r["description"], r["question"]) for r in rows] == [
        (c, lv or "", "", text) for c, lv, text in QUESTIONS]
    # The lab fills in some of it and runs again.
    answers = {("value", "6"): "A red circle appears on the screen.", ("stage", ""): "Which half of the session."}
    table = "column\tlevel\tdescription\tquestion\n" + "".join(
        f"{r['column']}\t{r['level']}\t{answers.get((r['column'], r['level']), '')}\t{r['question']}\n" for r in rows)
    filled = tmp_path / "filled.tsv"
    filled.write_text(table)
    _annotate(str(folder), "--out", str(tmp_path / "again"), "--descriptions", str(filled), "--questions",
              str(questions))
    project = DatasetProject.objects.order_by("-created_at").first()
    assert level(project, "value", "6").description == "A red circle appears on the screen."
    run = AnnotationSession.objects.get(dataset_level=level(project, "value", "6"))
    assert run.description == "A red circle appears on the screen."  # annotated with the lab's answer
    assert [(r["column"], r["level"]) for r in _rows(questions)] == [("trial_type", "blink_twice"),
                                                                     ("stage", "early"), ("stage", "late")]
    sidecar = json.loads((tmp_path / "again" / "task-stars_events.json").read_text())
    assert sidecar["stage"]["Description"] == "Which half of the session."


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("table", "message"), [
    ("column\tlevel\tdescription\nnope\t\tWhat it is.\n", "no column 'nope'"),
    ("column\tlevel\tdescription\nvalue\t99\tWhat it is.\n", "has no level '99'"),
    ("column\tdescription\nvalue\tWhat it is.\n", "missing: level"),
])
def test_an_unknown_column_or_level_is_one_line_and_stores_nothing(tmp_path, table, message):
    descriptions = tmp_path / "d.tsv"
    descriptions.write_text(table)
    with pytest.raises(CommandError, match=message) as refused:
        call_command("annotate_dataset", str(_folder(tmp_path)), "--out", str(tmp_path / "out"),
                     "--descriptions", str(descriptions))
    assert "\n" not in str(refused.value)
    assert not DatasetProject.objects.exists() and not AnnotationSession.objects.exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.django_db(transaction=True)
def test_a_descriptions_file_that_cannot_be_read_is_one_line(tmp_path):
    with pytest.raises(CommandError, match=r"--descriptions .*missing\.tsv: cannot read it"):
        call_command("annotate_dataset", str(_folder(tmp_path)), "--descriptions", str(tmp_path / "missing.tsv"))
    assert not DatasetProject.objects.exists()
