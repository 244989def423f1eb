"""A task's Design (its factor table and the design matrices as a zip) and Summary (its tag counts, as a
table and a small bar chart) pages: thin views over :mod:`.services`."""

from __future__ import annotations

import tempfile
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotations.datasets.selectors import project_for
from annotations.errors import FieldError, caught
from annotations.usage import services
from annotations.usage.forms import DesignForm
from annotations.usage.revisions import project_tasks
from bidsdata.usage.design import DesignError

ZIP_SPOOL_BYTES = 8 * 2**20
BAR_WIDTH = 240
"""The widest bar of the summary's chart, in the SVG's units."""


def _design_choice(request: HttpRequest) -> tuple[str, str]:
    form = DesignForm(request.GET or None)
    if request.GET and not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        raise FieldError(field, "; ".join(str(e) for e in errors))
    data = form.cleaned_data if request.GET else {}
    return data.get("type") or "Condition-variable", data.get("encoding") or "one-hot"


@login_required
@require_GET
def design_page(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    context: dict[str, Any] = {"project": project, "task": task_row, "tab": "design", "form": DesignForm(request.GET
                               or None), "tasks": project_tasks(project)}
    with caught() as outcome:
        type_tag, encoding = _design_choice(request)
        context.update(type_tag=type_tag, encoding=encoding,
                       design=services.design_factors(request.user, project, task_row, type_tag))
    context["error"] = outcome.message
    return render(request, "annotations/usage/design.html", context, status=outcome.status)


@login_required
@require_GET
def design_zip(request: HttpRequest, pk: Any, task: str) -> FileResponse:
    """The task's design matrices (one TSV per events file), its factor table and type summary, as one zip."""
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    type_tag, encoding = _design_choice(request)
    spool = tempfile.SpooledTemporaryFile(max_size=ZIP_SPOOL_BYTES)  # noqa: SIM115 - FileResponse closes it
    try:
        services.write_design_zip(request.user, project, task_row, type_tag, encoding, spool)
    except DesignError as exc:
        spool.close()
        raise FieldError("type", str(exc)) from None
    spool.seek(0)
    name = f"task-{task_row.name}_{type_tag.casefold()}_{encoding}_design.zip"
    return FileResponse(spool, as_attachment=True, filename=name, content_type="application/zip")


def bars(groups: list[dict[str, Any]], total: int) -> list[dict[str, Any]]:
    """The chart's bars: the most frequent tags of each group, each bar's width in the chart's units."""
    shown = []
    for index, group in enumerate(groups):
        for tag in group["tags"][:6]:
            shown.append({**tag, "group": group["title"], "group_index": index})
    shown.sort(key=lambda t: -t["events"])
    shown = shown[:16]
    for index, tag in enumerate(shown):
        tag["width"] = max(1, round(BAR_WIDTH * tag["events"] / total)) if total else 1
        tag["y"] = index * 22
    return shown


@login_required
@require_GET
def summary_page(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    context: dict[str, Any] = {"project": project, "task": task_row, "tab": "summary",
                               "tasks": project_tasks(project), "bar_width": BAR_WIDTH}
    with caught() as outcome:
        found = services.task_summary(request.user, project, task_row)
        chart = bars(found["groups"], found["total_events"])
        context.update(summary=found, chart=chart, chart_height=max(22, len(chart) * 22))
    context["error"] = outcome.message
    return render(request, "annotations/usage/summary.html", context, status=outcome.status)
