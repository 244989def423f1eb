"""The project page's questions for the lab and its quality panel: answering one question in place, and a
task's validity, quality line and row preview, loaded after the page (hedtools takes a moment on a big task).

Thin views: the answer is :func:`annotations.datasets.services.answer_question`'s, the figures
:func:`annotations.datasets.quality.task_quality`'s.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotations.access import EDIT_PROJECT_REFUSED, can_edit_project
from annotations.datasets import services
from annotations.datasets.forms import AnswerForm
from annotations.datasets.quality import task_quality
from annotations.datasets.questions import question_about
from annotations.datasets.selectors import level_state, project_for
from annotations.errors import caught, sentence
from annotations.models import ColumnKind, DatasetColumn, DatasetLevel, DatasetProject

MAX_ANSWER_ECHO = 2000


def _project(request: HttpRequest, pk: Any) -> DatasetProject:
    return project_for(request.user, pk)


def _form_errors(form: Any) -> str:
    return "; ".join(str(e) for errors in form.errors.values() for e in errors)


@login_required
@require_GET
def task_quality_panel(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    """A task's validity, quality line and row preview: a fragment the project page loads after itself."""
    project = _project(request, pk)
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
    project = _project(request, pk)
    if not can_edit_project(request.user, project):  # reviewers see the questions; the owner answers them
        raise PermissionDenied(EDIT_PROJECT_REFUSED)
    form = AnswerForm(request.POST)
    valid = form.is_valid()  # the ids are cleaned (or not) whatever the answer: a bad answer is shown in place
    level = column = None
    if form.cleaned_data.get("level_id"):
        level = (DatasetLevel.objects.select_related("column__task")
                 .filter(pk=form.cleaned_data["level_id"], column__task__project=project).first())
    elif form.cleaned_data.get("column_id"):
        column = (DatasetColumn.objects.select_related("task").filter(
            pk=form.cleaned_data["column_id"], task__project=project, kind=ColumnKind.CATEGORICAL).first())
    if (form.cleaned_data.get("level_id") or form.cleaned_data.get("column_id")) and level is None and column is None:
        raise Http404("No such level or column in this dataset.")
    error, status = "", 200
    if not valid:
        error, status = sentence(_form_errors(form)), 400
    else:
        with caught() as outcome:  # an empty answer, or past HEDIT_DATASET_RATE: shown in place
            services.answer_question(project, user=request.user, answer=form.cleaned_data["answer"], level=level,
                                     column=column)
        error, status = outcome.message, outcome.status
    anchor = f"#level-{level.pk}" if level is not None else (f"#column-{column.pk}" if column is not None else "")
    if not request.htmx:
        if error:
            messages.error(request, error)
        else:
            messages.success(request, "Thank you: the answer is the description now"
                             + (", and the level is being annotated again." if level is not None else "."))
        return redirect(f"{project.get_absolute_url()}{anchor}")
    if level is None and column is None:  # the form named neither: nothing to show in place but the problem
        return HttpResponse(error, status=status, content_type="text/plain")
    question = question_about(level=level, column=column)
    state = level_state(level) if level is not None and not error else None
    context = {"project": project, "q": question, "error": error, "answered": not error, "state": state,
               "typed": request.POST.get("answer", "")[:MAX_ANSWER_ECHO]}
    return render(request, "annotations/datasets/partials/question.html", context, status=status)


