"""Dataset project pages: upload, the project with its levels, edits, annotate all, sidecars and downloads."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotations.access import can_edit_project
from annotations.datasets import inventory_edits, services
from annotations.datasets.downloads import zip_download_name, zip_response
from annotations.datasets.forms import ColumnKindForm, DatasetUploadForm, LevelDescriptionForm, TemplateForm
from annotations.datasets.fragments import LEVEL_FILTERS, page_context, task_levels_context
from annotations.datasets.level_views import level_page_context
from annotations.datasets.levels import next_needing_work
from annotations.datasets.quality import task_quality
from annotations.datasets.results import refresh_sidecar
from annotations.datasets.selectors import (
    level_states,
    next_to_review,
    project_for,
    project_for_edit,
    validation_version,
    visible_projects,
)
from annotations.datasets.sidecars import spreadsheet
from annotations.datasets.uploads import FILES_READ, files_from_uploads
from annotations.errors import as_message, on_form, sentence
from annotations.models import DatasetColumn, DatasetLevel, DatasetProject

logger = logging.getLogger(__name__)

@login_required
@require_http_methods(["GET", "POST"])
def dataset_list(request: HttpRequest) -> HttpResponse:
    """The user's dataset projects and the upload form."""
    form = DatasetUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with on_form(form):  # a refused upload beside "files", a bad value beside its field
            files = files_from_uploads(data["files"])
            project = services.import_dataset(
                user=request.user, files=files, name=data["name"] or (data["files"][0].name or ""),
                schema_version=data["schema_version"] or None, ignore_existing_hed=data["ignore_existing_hed"],
                concurrency=data["concurrency"])
            logger.info("dataset %s imported by %s", project.pk, request.user)
            messages.success(request, "Uploaded: nothing is annotated yet. Next, press Annotate all.",
                             extra_tags="next")
            return redirect(project)
    projects = visible_projects(request.user).select_related("user")[:100]
    status = 400 if request.method == "POST" else 200
    return render(request, "annotations/datasets/list.html", {"form": form, "projects": projects,
                                                               "files_read": FILES_READ}, status=status)


@login_required
@require_GET
def dataset_detail(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for(request.user, pk)
    return render(request, "annotations/datasets/detail.html",
                  page_context(project, status=_status_filter(request), paged_task=request.GET.get("task", ""),
                               page=request.GET.get("page", 1), can_edit=can_edit_project(request.user, project)))


def _status_filter(request: HttpRequest) -> str:
    wanted = request.GET.get("status", "")
    return wanted if wanted in LEVEL_FILTERS else ""


@login_required
@require_GET
def task_levels(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    """One page of a task's levels, for its pager (htmx swaps it in place of the task's table)."""
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks.only("id", "project_id", "name", "sidecar_name"), name=task)
    context = task_levels_context(project, task_row, status=_status_filter(request), page=request.GET.get("page", 1),
                                  can_edit=can_edit_project(request.user, project))
    return render(request, "annotations/datasets/partials/task_levels.html", context)


@login_required
@require_POST
def dataset_annotate(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    with as_message(request):  # already being annotated, or past HEDIT_DATASET_RATE
        sessions = services.start_annotation(project, user=request.user)
        if sessions:
            # Tagged "job": the page takes it away once the job has ended (js/datasets.js), it is no longer true.
            messages.success(request, f"Annotating {len(sessions)} level(s), {project.concurrency} at a time: the "
                             "counts below follow them.", extra_tags="job")
        else:
            messages.info(request, "Every level already has an annotation; nothing to annotate.")
    return redirect(project)


@login_required
@require_POST
def level_annotate(request: HttpRequest, pk: Any, level_id: int) -> HttpResponse:
    """Annotate one level again (for example after its description changed)."""
    project = project_for_edit(request.user, pk)
    level = get_object_or_404(DatasetLevel, pk=level_id, column__task__project=project)
    with as_message(request):
        services.start_annotation(project, user=request.user, levels=[level])
    return redirect(f"{project.get_absolute_url()}#level-{level.pk}")


def _form_errors(form: Any) -> str:
    return "; ".join(str(e) for errors in form.errors.values() for e in errors)


@login_required
@require_POST
def column_edit(request: HttpRequest, pk: Any, column_id: int) -> HttpResponse:
    """Change a column's kind, or (with ``template``) a value column's ``#`` template."""
    project = project_for_edit(request.user, pk)
    column = get_object_or_404(DatasetColumn.objects.select_related("task__project"), pk=column_id,
                               task__project=project)
    form: Any = TemplateForm(request.POST) if "template" in request.POST else ColumnKindForm(request.POST)
    if not form.is_valid():
        messages.error(request, sentence(_form_errors(form)))
    else:
        with as_message(request):
            if isinstance(form, TemplateForm):
                inventory_edits.set_column_template(column, form.cleaned_data["template"])
            else:
                inventory_edits.set_column_kind(column, form.cleaned_data["kind"])
    return redirect(f"{project.get_absolute_url()}#column-{column.pk}")


@login_required
@require_http_methods(["GET", "POST"])
def level_edit(request: HttpRequest, pk: Any, level_id: int) -> HttpResponse:
    """A level's page: its description (annotate it again for a new one to count) and its annotation.

    Posted with ``next``, it goes on to the next level of the same task that needs work
    (:func:`.levels.next_needing_work`), or back to the project with a message when none is left.
    """
    # Everyone who sees the project reads the page (reviewers review from it); only its owner saves.
    project = project_for_edit(request.user, pk) if request.method == "POST" else project_for(request.user, pk)
    level = get_object_or_404(DatasetLevel.objects.select_related("column__task"), pk=level_id,
                              column__task__project=project)
    level.column.task.project = project
    form = LevelDescriptionForm(request.POST or None, initial={"description": level.description})
    on_page = request.POST.get("next") or request.POST.get("from") == "level"  # else the project page's row
    if request.method == "POST":
        saved = form.is_valid()
        if saved:
            with on_form(form) as outcome:
                inventory_edits.set_level_description(level, form.cleaned_data["description"])
            saved = not outcome.failed
        if saved and request.POST.get("next"):
            return _next_level(request, project, level)
        if saved and on_page:
            messages.success(request, "Description saved.")
            return redirect("annotations:dataset-level", pk=project.pk, level_id=level.pk)
        if not on_page:
            if not saved:
                messages.error(request, sentence(_form_errors(form)))
            return redirect(f"{project.get_absolute_url()}#level-{level.pk}")
    context = level_page_context(request, project, level, form=form)  # with the issue that sent the lab here
    return render(request, "annotations/datasets/level_edit.html", context, status=400 if form.errors else 200)


def _next_level(request: HttpRequest, project: DatasetProject, level: DatasetLevel) -> HttpResponse:
    following = next_needing_work(level)
    if following is None:
        messages.success(request, f"Saved. No other level of task {level.column.task.name} needs work.")
        return redirect(f"{project.get_absolute_url()}#task-{level.column.task.name}")
    return redirect("annotations:dataset-level", pk=project.pk, level_id=following.level.pk)


@login_required
@require_GET
def review_next(request: HttpRequest, pk: Any) -> HttpResponse:
    """The run of the next level that needs a reviewer's look, with the existing review tools."""
    project = project_for(request.user, pk)
    state = next_to_review(level_states(project))
    if state is None:
        messages.info(request, "No level is waiting for a review.")
        return redirect(project)
    return redirect("annotations:session-detail", pk=state.session_id or state.latest_session_id)


@login_required
@require_GET
def task_sidecar_page(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    """A task's sidecar, validated with every events file; ``?format=json|tsv`` downloads it."""
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    fmt = request.GET.get("format", "")
    if fmt not in ("", "json", "tsv"):
        return HttpResponse("format must be json or tsv", status=400, content_type="text/plain")
    # A download is asked for on purpose: it waits for the sidecar; the page shows what is stored at once.
    checked = None if fmt else task_quality(project, task_row)
    result = refresh_sidecar(project, task_row) if checked is None else checked.result
    if fmt == "json":
        response = HttpResponse(json.dumps(result.sidecar, indent=2, ensure_ascii=False) + "\n",
                                content_type="application/json")
        response["Content-Disposition"] = content_disposition_header(True, task_row.sidecar_name)
        return response
    if fmt == "tsv":
        response = HttpResponse(spreadsheet(result), content_type="text/tab-separated-values")
        name = task_row.sidecar_name.removesuffix(".json") + "_hed.tsv"
        response["Content-Disposition"] = content_disposition_header(True, name)
        return response
    assert checked is not None
    context = {"project": project, "task": task_row, "result": result, "rows": result.issue_rows(),
               "verdict": checked.verdict, "version": validation_version(project),
               "preview": json.dumps(result.sidecar, indent=2, ensure_ascii=False)}
    return render(request, "annotations/datasets/sidecar.html", context)


@login_required
@require_GET
def dataset_download(request: HttpRequest, pk: Any) -> FileResponse:
    """The dataset's events files and sidecars (all an upload keeps) with the new sidecars in place, as one zip."""
    project = project_for(request.user, pk)
    if not project.tasks.exists():
        raise Http404("This dataset has no tasks.")
    return zip_response(project, zip_download_name(project.name))
