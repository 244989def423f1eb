"""Questions once (issue 27): tasks sharing a column and level are asked once, and one answer serves them all,
on the page (one by one or a whole table) and through the API; the answered levels are queued in one burst."""

from __future__ import annotations

import asyncio
import html
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from agents.columns import ColumnContext, ColumnResult
from annotations.datasets import answers, services
from annotations.datasets.question_answers import answer_table
from annotations.datasets.questions import project_questions, shared_questions
from annotations.models import AnnotationSession, DatasetColumn, DatasetLevel, DatasetProject
from bidsdata.archive import read_uploads
from tests.support.llm import ScriptedLLM

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
# Two made-up tasks sharing `phase` (codes) and `side`; only the second has `pitch`. No sidecar: nobody said
# what any level means, so every categorical column and level is a question.
SHARED = "onset\tduration\tphase\tside\n1\t0\t1\tleft\n2\t0\t2\tright\n3\t0\t1\tleft\n"
MORE = "onset\tduration\tphase\tside\tpitch\n1\t0\t1\tleft\thigh\n2\t0\t2\tright\tlow\n"
PER_TASK = {"colors": 6, "shapes": 9}  # 2 columns (+1) and their levels
DISTINCT = 9


@pytest.fixture
def project(user) -> DatasetProject:
    files = read_uploads([
        ("dataset_description.json", json.dumps({"Name": "two", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"})
         .encode()),
        ("sub-01_task-colors_events.tsv", SHARED.encode()),
        ("sub-01_task-shapes_events.tsv", MORE.encode()),
    ])
    return services.import_dataset(user=user, files=files, name="two")


@pytest.fixture
def launched(monkeypatch, settings) -> list[str]:
    settings.TASKS = DUMMY_TASKS
    noted: list[str] = []
    monkeypatch.setattr(answers, "launch", noted.append)  # the drain is not started: the notes are kept
    answers.reset()
    return noted


def _levels(project: DatasetProject, column: str, value: str) -> list[DatasetLevel]:
    return list(DatasetLevel.objects.filter(column__task__project=project, column__name=column, value=value)
                .order_by("column__task__name"))


@pytest.mark.django_db
def test_the_same_column_and_level_across_tasks_is_one_question(project):
    asked = project_questions(project)
    assert len(asked) == sum(PER_TASK.values())  # each task still counts its own
    shared = shared_questions(asked)
    assert len(shared) == DISTINCT
    one = next(q for q in shared if q.column.name == "phase" and q.level is not None and q.level.value == "1")
    assert one.tasks == ["colors", "shapes"] and one.count == 3  # two rows in one task, one in the other
    assert next(q for q in shared if q.column.name == "pitch" and q.level is None).tasks == ["shapes"]


@pytest.mark.django_db
def test_the_api_lists_each_question_once_with_its_tasks_and_one_answer_serves_all(
        user, project, launched, django_capture_on_commit_callbacks):
    api = APIClient()
    api.force_authenticate(user)
    url = f"/api/datasets/{project.pk}/questions/"
    listed = api.get(url).json()["results"]
    assert len(listed) == DISTINCT
    left = next(q for q in listed if (q["column"], q["level"]) == ("side", "left"))
    both = _levels(project, "side", "left")
    assert left["tasks"] == ["colors", "shapes"] and left["level_ids"] == [lv.pk for lv in both]

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(url, {"column": "side", "level": "left", "answer": "The target is on the left."},
                            format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert len(body["sessions"]) == 2 and body["session"] in body["sessions"]
    assert [lv.description for lv in _levels(project, "side", "left")] == ["The target is on the left."] * 2
    runs = AnnotationSession.objects.filter(dataset_level__in=both)
    assert runs.count() == 2 and launched == [str(project.pk)]
    noted = answers.pending()[str(project.pk)]
    assert len(noted.sessions) == 2 and len(noted.tasks) == 2
    after = api.get(url).json()["results"]
    assert len(after) == DISTINCT - 1 and ("side", "left") not in {(q["column"], q["level"]) for q in after}

    column = api.post(url, {"column": "phase", "answer": "The part of the trial."}, format="json")
    assert column.status_code == 200 and column.json()["sessions"] == []
    assert set(DatasetColumn.objects.filter(task__project=project, name="phase")
               .values_list("description", flat=True)) == {"The part of the trial."}


@pytest.mark.django_db
def test_the_page_lists_each_question_once_with_the_counts_and_answers_for_every_task(client, user, project,
                                                                                      launched):
    client.force_login(user)
    page = client.get(project.get_absolute_url()).content.decode()
    panel = page[page.index('id="questions"'):page.index('id="memory-setting"')]
    assert panel.count('<li class="ds-question"') == DISTINCT and 'id="questions-count">9<' in panel
    for task, count in PER_TASK.items():
        assert f'id="questions-count-{task}">{count}<' in page
    assert "Asked in 2 tasks" in panel
    first, second = _levels(project, "phase", "2")
    done = client.post(f"/datasets/{project.pk}/questions/", {"level_id": second.pk, "answer": "Feedback shows."},
                       HTTP_HX_REQUEST="true")
    assert done.status_code == 200 and "in 2 tasks" in done.content.decode()
    first.refresh_from_db()
    assert first.description == "Feedback shows." and not first.needs_description
    assert AnnotationSession.objects.filter(dataset_level__in=[first, second]).count() == 2


@pytest.mark.django_db
def test_a_filled_table_answers_every_task_at_once_and_queues_its_levels_in_one_burst(
        client, user, project, launched, django_capture_on_commit_callbacks):
    client.force_login(user)
    table = client.get(f"/datasets/{project.pk}/questions/table/")
    assert table.status_code == 200 and table["Content-Type"].startswith("text/tab-separated-values")
    rows = table.content.decode().splitlines()
    assert rows[0] == "column\tlevel\tdescription\tquestion" and len(rows) == 1 + DISTINCT
    filled = "column\tlevel\tdescription\nphase\t1\tThe cue appears.\nphase\t2\tFeedback shows.\n" \
             "pitch\thigh\tA high tone plays.\nside\t\tWhere the target is.\n"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/datasets/{project.pk}/questions/table/", {"table": filled})
    assert response.status_code == 302 and response["Location"].endswith("#questions")
    assert [lv.description for lv in _levels(project, "phase", "1")] == ["The cue appears."] * 2
    assert _levels(project, "pitch", "high")[0].description == "A high tone plays."
    assert set(DatasetColumn.objects.filter(task__project=project, name="side")
               .values_list("description", flat=True)) == {"Where the target is."}
    # 2 + 2 + 1 levels annotated again, all noted before the drain starts: one batch for the drafts.
    assert AnnotationSession.objects.count() == 5 and launched == [str(project.pk)]
    assert len(answers.pending()[str(project.pk)].sessions) == 5
    remaining = shared_questions(project_questions(project))
    assert len(remaining) == DISTINCT - 4

    upload = SimpleUploadedFile("answers.tsv", b"column\tlevel\tdescription\npitch\tlow\tA low tone plays.\n")
    assert client.post(f"/datasets/{project.pk}/questions/table/", {"file": upload}).status_code == 302
    assert _levels(project, "pitch", "low")[0].description == "A low tone plays."


@pytest.mark.django_db
@pytest.mark.parametrize(("table", "message"), [
    ("", "paste the filled questions table"),
    ("col\tlevel\tdescription\nx\t\ty\n", "missing: column"),
    ("column\tlevel\tdescription\nphase\t1\t\n", "no filled description"),
    ("column\tlevel\tdescription\nphase\t1\tThe cue.\nnope\t1\tx\n", "no column 'nope'"),
    ("column\tlevel\tdescription\nphase\t1\tThe cue.\nphase\t9\tx\n", "has no level '9'"),
])
def test_a_bad_table_stores_nothing_and_says_why(client, user, project, launched, table, message):
    client.force_login(user)
    page = client.post(f"/datasets/{project.pk}/questions/table/", {"table": table}, follow=True)
    assert message in html.unescape(page.content.decode()).lower()
    assert not AnnotationSession.objects.exists() and launched == []
    assert all(lv.needs_description for lv in _levels(project, "phase", "1"))


@pytest.mark.django_db
def test_only_the_owner_answers_from_a_table(project, other_user, launched):
    with pytest.raises(Exception) as refused:
        answer_table(project, user=other_user, text="column\tlevel\tdescription\nphase\t1\tThe cue.\n")
    assert getattr(refused.value, "status", None) in (403, 404)
    assert not AnnotationSession.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_answered_levels_are_drafted_in_one_batch_with_their_siblings_in_view(user, project, launched, monkeypatch):
    from annotations.datasets import drafts as drafts_module

    answer_table(project, user=user, text="column\tlevel\tdescription\nphase\t1\tThe cue appears.\n"
                                          "pitch\thigh\tA high tone plays.\n")
    sessions = [str(pk) for pk in AnnotationSession.objects.values_list("pk", flat=True)]
    asked: list[list[str]] = []

    async def drafts(session_ids: list[str], **_: object) -> dict:
        asked.append(sorted(session_ids))
        return {}

    async def run(session_id: str, **_: object) -> None:
        await AnnotationSession.objects.filter(pk=session_id).aupdate(status="succeeded")

    async def nothing(*_: object, **__: object) -> None:
        return None

    monkeypatch.setattr(answers, "column_drafts", drafts)
    monkeypatch.setattr(answers, "execute_session", run)
    monkeypatch.setattr(answers, "broadcast_progress", nothing)
    monkeypatch.setattr(answers, "refresh_sidecar", lambda *_: None)
    answers.drain(str(project.pk))
    assert asked == [sorted(sessions)] and len(sessions) == 3  # one batch: phase 1 in both tasks, pitch high

    # Each column's request sees the answered level with its answer and its siblings with theirs.
    again = answer_table(project, user=user, text="column\tlevel\tdescription\nphase\t2\tFeedback shows.\n")
    requests: list[ColumnContext] = []

    async def annotate_column(context: ColumnContext, *_: object, **__: object) -> ColumnResult:
        requests.append(context)
        return ColumnResult(column=context.column)  # drafts nothing: the levels' runs annotate on their own

    monkeypatch.setattr(drafts_module, "annotate_column", annotate_column)
    asyncio.run(drafts_module.column_drafts([str(s.pk) for s in again.sessions], llm=ScriptedLLM([])))
    assert len(requests) == 2  # the column in each task
    for context in requests:
        levels = {lv.value: lv for lv in context.levels}
        assert set(levels) == {"1", "2"} and levels["2"].wanted and not levels["1"].wanted
        assert levels["2"].description == "Feedback shows." and levels["1"].description == "The cue appears."
