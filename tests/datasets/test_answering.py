"""Open questions in the product: a level nobody described shows "needs description", and answering one makes the
answer its description and annotates that level again (services, the project page, its quality panel)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django_tasks import default_task_backend

from annotations.datasets import answers, services
from annotations.datasets import results as results_module
from annotations.datasets.question_answers import answer_everywhere
from annotations.datasets.questions import project_questions, shared_questions
from annotations.datasets.selectors import level_states, progress
from annotations.errors import QuotaExceeded
from annotations.models import AnnotationSession, DatasetColumn, DatasetProject, JobStatus, SessionStatus
from tests.datasets.lab import GOOD, NO_ROLE, QUESTIONS, annotate, finish, lab_project, level

pytestmark = pytest.mark.django_db
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "annotations" / "datasets"


@pytest.fixture
def project(user):
    return lab_project(user)


def _state(project, column, value):
    return next(s for s in level_states(project) if (s.level.column.name, s.level.value) == (column, value))


def test_the_project_s_questions_name_their_rows(project):
    found = project_questions(project)
    assert [(q.column.name, q.level.value if q.level else None, q.text) for q in found] == QUESTIONS
    assert found[0].level == level(project, "trial_type", "blink_twice") and found[2].level is None
    assert found[0].parts == [("What does ", False), ("blink_twice", True), (" mean in column ", False),
                              ("trial_type", True), ("?", False)]


def test_a_level_with_an_open_question_never_looks_done(project, user):
    annotate(project, user, {("trial_type", "blink_twice"): NO_ROLE, ("trial_type", "press"): GOOD["press"]})
    state = _state(project, "trial_type", "blink_twice")
    assert (state.status, state.outcome, state.open_question) == ("needs_description", "valid", True)
    assert state.status_label == "Needs description" and state.annotation == NO_ROLE  # still the sidecar's HED
    assert _state(project, "trial_type", "press").status == "valid"
    assert progress(level_states(project))["done"] == 2  # annotated all the same
    # A run of it on its way shows as such; "Annotate all" still annotates the undescribed levels.
    [running] = services.create_level_sessions(project, [level(project, "stage", "early")], user=user)
    AnnotationSession.objects.filter(pk=running.pk).update(status=SessionStatus.RUNNING)
    assert _state(project, "stage", "early").status == "running"
    todo = {(lv.column.name, lv.value) for lv in services.levels_to_annotate(project)}
    assert ("value", "6") in todo and ("stage", "late") in todo and ("trial_type", "blink_twice") not in todo


def test_answering_describes_the_level_and_annotates_only_it_again(project, user, settings, monkeypatch,
                                                                   django_capture_on_commit_callbacks):
    settings.TASKS = DUMMY_TASKS
    default_task_backend.clear()
    launched: list[str] = []
    monkeypatch.setattr(answers, "launch", launched.append)
    answers.reset()  # no notes but this test's (drained by tests/datasets/test_answer_burst.py)
    annotate(project, user, {("trial_type", "blink_twice"): NO_ROLE})
    target = level(project, "trial_type", "blink_twice")
    with django_capture_on_commit_callbacks(execute=True):
        [session] = answer_everywhere(project, user=user, answer="  The participant taps the star once. ",
                                      level=target)
    target.refresh_from_db()
    assert (target.description, target.needs_description) == ("The participant taps the star once.", False)
    assert session.dataset_level == target and session.description == "The participant taps the star once."
    # Not a job in the run slots: a note for the answers' own thread (its level, its task).
    assert default_task_backend.results == [] and launched == [str(project.pk)]
    assert answers.pending()[str(project.pk)].sessions == [str(session.pk)]
    assert AnnotationSession.objects.filter(dataset_level__isnull=False, status=SessionStatus.QUEUED).count() == 1
    assert DatasetProject.objects.get(pk=project.pk).status == JobStatus.ANNOTATING
    state = _state(project, "trial_type", "blink_twice")
    assert (state.status, state.queued, state.open_question) == ("pending", True, False)
    finish(session, "Agent-action, Participant-response, (Press, Mouse-button)")
    assert _state(project, "trial_type", "blink_twice").status == "valid"
    assert [q.text for q in project_questions(project)] == [q[2] for q in QUESTIONS[1:]]


def test_an_answer_while_the_project_job_runs_is_queued_beside_it(project, user, settings, monkeypatch,
                                                                   django_capture_on_commit_callbacks):
    settings.TASKS = DUMMY_TASKS
    default_task_backend.clear()
    launched: list[str] = []
    monkeypatch.setattr(answers, "launch", launched.append)
    answers.reset()
    job = services.start_annotation(project, user=user, enqueue=False)
    assert DatasetProject.objects.get(pk=project.pk).status == JobStatus.ANNOTATING
    with django_capture_on_commit_callbacks(execute=True):
        [session] = answer_everywhere(project, user=user, answer="A red circle appears.",
                                      level=level(project, "value", "6"))
    assert session.pk not in {s.pk for s in job} and launched == [str(project.pk)]
    # Its newest run is the one that counts: the job's older run of the level cannot undo the answer.
    older = next(s for s in job if s.dataset_level_id == session.dataset_level_id)
    finish(session, "Sensory-event, Experimental-stimulus, Visual-presentation, (Red, Circle)")
    finish(older, "Sensory-event, Experimental-stimulus, Visual-presentation, Label/Trigger-6")
    assert _state(project, "value", "6").annotation.endswith("(Red, Circle)")


def test_a_column_answer_is_the_column_s_description_and_runs_nothing(project, user):
    stage = DatasetColumn.objects.get(task__project=project, name="stage")
    assert answer_everywhere(project, user=user, answer="Which half of the session.", column=stage) == []
    stage.refresh_from_db()
    assert (stage.description, stage.needs_description) == ("Which half of the session.", False)
    assert not AnnotationSession.objects.exists()
    assert ("stage", None) not in {(q.column.name, q.level) for q in project_questions(project)}


def test_a_bad_answer_or_one_past_the_quota_stores_nothing(project, user, settings):
    target = level(project, "value", "6")
    for bad in ("", "   ", "x" * 2001, None):
        with pytest.raises(services.DatasetRequestError) as refused:
            answer_everywhere(project, user=user, answer=bad, level=target)
        assert refused.value.status == 400 and refused.value.field == "answer"
    with pytest.raises(services.DatasetRequestError, match="give the level"):
        answer_everywhere(project, user=user, answer="x")
    settings.HEDIT_DATASET_RATE = "0/hour"
    with pytest.raises(QuotaExceeded):
        answer_everywhere(project, user=user, answer="A red circle appears.", level=target)
    target.refresh_from_db()
    assert target.description == "Trigger 6" and not AnnotationSession.objects.exists()


# --- the project page --------------------------------------------------------------------------


def test_the_project_page_lists_the_questions_with_answer_boxes(client, user, project):
    client.force_login(user)
    page = client.get(project.get_absolute_url()).content.decode()
    panel = page[page.index('id="questions"'):page.index('id="questions-stars"')]
    assert "Questions for the lab" in panel and panel.count('<li class="ds-question"') == len(QUESTIONS)
    assert f'id="questions-count-stars">{len(QUESTIONS)}<' in page  # the task's count, beside the project's
    assert "What does <code>6</code> mean in column <code>value</code> (its other codes: 7)?" in panel
    blinks = level(project, "trial_type", "blink_twice")
    assert f'name="level_id" value="{blinks.pk}"' in panel and 'name="column_id"' in panel
    assert f'hx-post="/datasets/{project.pk}/questions/"' in panel
    assert page.count('data-status="needs_description"') == 4  # blink_twice, 6, early, late
    assert f'hx-get="/datasets/{project.pk}/tasks/stars/quality/"' in page


def test_a_long_list_of_questions_starts_folded_with_its_count_in_view(project):
    from django.template.loader import render_to_string

    found = shared_questions(project_questions(project))

    def panel(questions):
        return render_to_string("annotations/datasets/partials/questions_project.html",
                                {"tasks": [], "questions": questions, "project": project})

    assert '<details class="ds-questions" open>' in panel(found)  # a few questions: open
    many = found * 3  # a column of marker strings asks one per marker
    folded = panel(many)
    assert '<details class="ds-questions">' in folded and f'id="questions-count">{len(many)}<' in folded


def test_answering_on_the_page_swaps_the_question_in_place(client, user, project, settings):
    settings.TASKS = DUMMY_TASKS
    client.force_login(user)
    six = level(project, "value", "6")
    url = f"/datasets/{project.pk}/questions/"
    refused = client.post(url, {"level_id": six.pk, "answer": " "}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400
    body = refused.content.decode()
    assert f'id="q-{six.column_id}-{six.pk}"' in body and 'data-answered="false"' in body and "error-line" in body
    done = client.post(url, {"level_id": six.pk, "answer": "A red circle appears."}, HTTP_HX_REQUEST="true")
    assert done.status_code == 200
    body = done.content.decode()
    assert body.lstrip().startswith("<li") and 'data-answered="true"' in body
    assert "A red circle appears." in body and f'href="#level-{six.pk}"' in body and "Queued" in body
    assert AnnotationSession.objects.get().dataset_level == six
    gone = client.post(url, {"level_id": 999999, "answer": "x"}, HTTP_HX_REQUEST="true")  # said in place, no 404 page
    assert gone.status_code == 409 and "no longer asked" in gone.content.decode()
    page = client.get(project.get_absolute_url()).content.decode()
    assert "What does <code>6</code> mean" not in page  # answered: no longer a question


def test_without_htmx_an_answer_goes_back_to_the_project_page(client, user, project):
    client.force_login(user)
    stage = DatasetColumn.objects.get(task__project=project, name="stage")
    response = client.post(f"/datasets/{project.pk}/questions/", {"column_id": stage.pk, "answer": "The half."})
    assert response.status_code == 302 and response["Location"].endswith(f"#column-{stage.pk}")
    assert client.post(f"/datasets/{project.pk}/questions/", {"answer": "x"}).status_code == 302  # message shown


def test_another_users_project_has_no_questions_to_answer(client, other_user, project):
    client.force_login(other_user)
    six = level(project, "value", "6")
    assert client.post(f"/datasets/{project.pk}/questions/", {"level_id": six.pk, "answer": "x"}).status_code == 404
    assert client.get(f"/datasets/{project.pk}/tasks/stars/quality/").status_code == 404


def test_the_quality_panel_gives_verdicts_and_links_each_failure_to_its_level(client, user, project, monkeypatch):
    annotate(project, user, {("trial_type", "show_star"): GOOD["show_star"], ("trial_type", "press"): GOOD["press"],
                             ("trial_type", "blink_twice"): NO_ROLE})
    composed = results_module.task_sidecar

    def as_annotated(*args, **kwargs):  # the composition may add a role; the panel reports what the sidecar says
        result = composed(*args, **kwargs)
        result.sidecar["trial_type"]["HED"]["blink_twice"] = NO_ROLE
        return result

    monkeypatch.setattr(results_module, "task_sidecar", as_annotated)
    results_module.refresh_project(project)  # what the job, or the background task the page asks for, does
    client.force_login(user)
    panel = client.get(f"/datasets/{project.pk}/tasks/stars/quality/").content.decode()
    rows = re.findall(r'<tr class="ds-row[^"]*" data-ok="(true|false)" data-line="(\d+)"', panel)
    assert rows == [("true", "2"), ("true", "3"), ("false", "4"), ("true", "5")]
    failing = panel[panel.index('data-line="4"'):]
    failing = failing[:failing.index("</tr>")]
    blinks = level(project, "trial_type", "blink_twice")
    assert "No task role" in failing and f'href="/datasets/{project.pk}/levels/{blinks.pk}/"' in failing
    line = panel[panel.index('id="quality-line-stars"'):]
    assert "levels without HED yet" in line and "Not valid yet" not in line  # the sidecar validates
    assert "3 of 4 rows pass the event checks" in line and "4 of 4 rows annotated" in line
    assert re.search(r"<strong>5</strong> open questions", line)


def test_the_quality_panel_reads_stored_figures_and_says_validating_until_they_are(client, user, project,
                                                                                   monkeypatch,
                                                                                   django_capture_on_commit_callbacks):
    asked = []

    class Spy:  # stands in for the background task: the page only asks for it
        def enqueue(self, *args):
            asked.append(args)

    monkeypatch.setattr(results_module, "validate_sidecar_task", Spy())
    client.force_login(user)
    url = f"/datasets/{project.pk}/tasks/stars/quality/"
    with django_capture_on_commit_callbacks(execute=True):
        first, again = client.get(url).content.decode(), client.get(url).content.decode()
    assert "Validating" in first and 'hx-trigger="every 3s"' in first and "Validating" in again
    assert len(asked) == 1  # asked once for this state of the annotations, not on every poll
    results_module.refresh_project(project)

    def never(*args, **kwargs):
        raise AssertionError("the panel ran hedtools")

    monkeypatch.setattr(results_module.hed_quality, "quality", never)
    monkeypatch.setattr(results_module.hed_quality, "row_preview", never)
    stored = client.get(url).content.decode()
    assert "Validating" not in stored and re.search(r"\d+ of 4 rows pass the event checks", stored)
    annotate(project, user, {("trial_type", "press"): GOOD["press"]})  # the annotations changed
    with django_capture_on_commit_callbacks(execute=True):
        changed = client.get(url).content.decode()
    assert "Validating" in changed and "of the last sidecar validated" in changed and len(asked) == 2


def test_the_dataset_templates_have_no_inline_styles():
    found = [p.name for p in TEMPLATES.rglob("*.html") if re.search(r"\sstyle=", p.read_text())]
    assert found == []
