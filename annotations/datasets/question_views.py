"""The project page's questions for the lab and its quality panel: answering one question in place, and a
task's validity, quality line and row preview, loaded after the page (hedtools takes a moment on a big task).

Thin views: the answer is :func:`annotations.datasets.question_answers.answer_everywhere`'s, the figures
:func:`annotations.datasets.quality.task_quality`'s.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotations.access import check_edit_project
from annotations.datasets import services
from annotations.datasets.forms import AnswerForm
from annotations.datasets.quality import task_quality
from annotations.datasets.question_answers import answer_everywhere, answer_table
from annotations.datasets.questions import project_questions, question_about, shared_questions
from annotations.datasets.selectors import level_state, project_for, project_for_edit
from annotations.errors import caught, sentence
from annotations.models import ColumnKind, DatasetColumn, DatasetLevel
from annotations.runs.memory import set_memory_reuse
from bidsdata.questions import MAX_TABLE_BYTES, AnswersError, Question, decode_table, questions_table

MAX_ANSWER_ECHO = 2000


def _form_errors(form: Any) -> str:
    return "; ".join(str(e) for errors in form.errors.values() for e in errors)


@login_required
@require_GET
def task_quality_panel(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    """A task's validity, quality line and row preview: a fragment the project page loads after itself."""
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    return render(request, "annotations/datasets/partials/quality.html",
                  {"project": project, "checked": task_quality(project, task_row)})


@login_required
@require_POST
def question_answer(request: HttpRequest, pk: Any) -> HttpResponse:
    """The lab's answer to an open question: it becomes the description, and the level is annotated again.

    With htmx the question's row comes back in place (answered, or with the problem named); without, the
    project page with a message.
    """
    project = project_for_edit(request.user, pk)  # reviewers see the questions; the owner answers them
    form = AnswerForm(request.POST)
    valid = form.is_valid()  # the ids are cleaned (or not) whatever the answer: a bad answer is shown in place
    level = column = None
    if form.cleaned_data.get("level_id"):
        level = (DatasetLevel.objects.select_related("column__task")
                 .filter(pk=form.cleaned_data["level_id"], column__task__project=project).first())
    elif form.cleaned_data.get("column_id"):
        column = (DatasetColumn.objects.select_related("task").filter(
            pk=form.cleaned_data["column_id"], task__project=project).exclude(kind=ColumnKind.SKIP).first())
    error, status, sessions = "", 200, []
    if (form.cleaned_data.get("level_id") or form.cleaned_data.get("column_id")) and level is None and column is None:
        # Gone since the page was drawn (a column skipped, a level re-imported): said in place, never a 404 page.
        error, status = "This question is no longer asked: reload the page for the open ones.", 409
    elif column is not None and column.kind == ColumnKind.VALUE:
        error, status = (f"Column {column.name} is a value column: give it a template that carries its values, "
                         "or skip it (the buttons beside its question)."), 400
    elif not valid:
        error, status = sentence(_form_errors(form)), 400
    if not error:
        with caught() as outcome:  # an empty answer, or past HEDIT_DATASET_RATE: shown in place
            # One answer for every task asking the same question (same column and level).
            sessions = answer_everywhere(project, user=request.user, answer=form.cleaned_data["answer"],
                                         level=level, column=column)
        error, status = outcome.message, outcome.status
    anchor = f"#level-{level.pk}" if level is not None else (f"#column-{column.pk}" if column is not None else "")
    if not request.htmx:
        if error:
            messages.error(request, error)
        else:
            messages.success(request, "Thank you: the answer is the description now"
                             + (", and the level is being annotated again." if level is not None else "."))
        return redirect(f"{project.get_absolute_url()}{anchor}")
    if level is None and column is None:  # no such question (any more): its row says so, in place
        return render(request, "annotations/datasets/partials/question_gone.html", {"error": error}, status=status)
    question = question_about(level=level, column=column)
    state = level_state(level) if level is not None and not error else None
    context = {"project": project, "q": question, "error": error, "answered": not error, "state": state,
               "typed": request.POST.get("answer", "")[:MAX_ANSWER_ECHO], "answered_levels": len(sessions)}
    return render(request, "annotations/datasets/partials/question.html", context, status=status)


def _table_text(request: HttpRequest) -> str:
    """The pasted table, else the uploaded one (UTF-8); refused (400) when neither or not text."""
    upload = request.FILES.get("file")
    if upload is not None:
        try:
            return decode_table(upload.read(MAX_TABLE_BYTES + 1))
        except AnswersError as exc:
            raise services.DatasetRequestError("table", str(exc)) from None
    text = request.POST.get("table", "")
    if not text.strip():
        raise services.DatasetRequestError("table", "paste the filled questions table or upload it")
    return text


@login_required
def question_table(request: HttpRequest, pk: Any) -> HttpResponse:
    """GET: the project's questions as the lab's table (TSV, one row per question however many tasks ask it).
    POST: the filled table (pasted or uploaded), applied to every task, its answered levels annotated again."""
    project = project_for(request.user, pk)
    if request.method == "GET":
        asked = shared_questions(project_questions(project))
        text = questions_table(Question(q.column.name, q.level.value if q.level is not None else None, q.text)
                               for q in asked)
        response = HttpResponse(text, content_type="text/tab-separated-values; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="questions.tsv"'
        return response
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    check_edit_project(request.user, project)
    with caught() as outcome:
        done = answer_table(project, user=request.user, text=_table_text(request))
    if outcome.message:
        messages.error(request, outcome.message)
    else:
        messages.success(request, f"{done.rows} answer(s) from the table are descriptions now; "
                         f"{len(done.sessions)} level(s) are being annotated again with them.")
    return redirect(f"{project.get_absolute_url()}#questions")


@login_required
@require_POST
def memory_setting(request: HttpRequest, pk: Any) -> HttpResponse:
    """The project's owner turns on or off the reuse of earlier reviewed annotations for its level runs."""
    project = project_for(request.user, pk)
    reuse = request.POST.get("reuse", "")
    if reuse not in ("on", "off"):
        return HttpResponse("reuse must be on or off", status=400, content_type="text/plain")
    set_memory_reuse(project, user=request.user, reuse=reuse == "on")  # 403 for anyone but the owner
    messages.success(request, "Runs of this project's levels " + (
        "may start from earlier reviewed annotations again." if reuse == "on" else
        "no longer start from earlier reviewed annotations; annotate a level again for this to count."))
    return redirect(f"{project.get_absolute_url()}#memory-setting")
