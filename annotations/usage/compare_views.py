"""The Compare tab: a task's two sidecar revisions side by side through a set of queries (a thin view)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotations.datasets.selectors import project_for
from annotations.errors import NotFound, on_form
from annotations.usage.comparisons import compare_revisions
from annotations.usage.forms import CompareForm
from annotations.usage.revisions import project_tasks, task_revisions


@login_required
@require_GET
def compare_page(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for(request.user, pk)
    tasks = project_tasks(project)
    form = CompareForm(request.GET or None)
    name = request.GET.get("task") or (tasks[0].name if tasks else "")
    task = next((t for t in tasks if t.name == name), None)
    if task is None and tasks:
        raise NotFound(f"no task {name!r} in this dataset")
    context: dict[str, Any] = {"project": project, "tab": "compare", "tasks": tasks, "task": task, "form": form,
                               "revisions": task_revisions(project, task) if task else []}
    status = 200
    if request.GET.get("q") is not None and form.is_valid() and task is not None:
        with on_form(form) as outcome:
            context["comparison"] = compare_revisions(request.user, project, task, form.cleaned_data["a"] or None,
                                                      form.cleaned_data["b"] or None, form.queries(),
                                                      page=form.cleaned_data["page"] or 1)
        status = outcome.status
    elif request.GET.get("q") is not None:
        status = 400
    return render(request, "annotations/usage/compare.html", context, status=status)
