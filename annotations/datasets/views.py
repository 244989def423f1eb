"""Dataset project pages: upload, the project with its levels, edits, annotate all, sidecars and downloads."""

from __future__ import annotations

import json
import logging
import tempfile
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotations.datasets import services
from annotations.datasets.forms import ColumnKindForm, DatasetUploadForm, LevelDescriptionForm, TemplateForm
from annotations.datasets.fragments import LEVEL_FILTERS, page_context
from annotations.datasets.selectors import level_states, next_to_review, visible_projects
from annotations.datasets.sidecars import spreadsheet, task_sidecar, write_zip
from annotations.datasets.uploads import files_from_uploads
from annotations.errors import RequestError, sentence, show_as_message, show_on_form
from annotations.models import DatasetColumn, DatasetLevel, DatasetProject
from bidsdata.archive import DatasetError

logger = logging.getLogger(__name__)

ZIP_SPOOL_BYTES = 8 * 2**20  # a dataset zip larger than this is written to a temporary file, not memory


def _project(request: HttpRequest, pk: Any) -> DatasetProject:
    return get_object_or_404(visible_projects(request.user), pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
def dataset_list(request: HttpRequest) -> HttpResponse:
    """The user's dataset projects and the upload form."""
    form = DatasetUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            files = files_from_uploads(data["files"])
            project = services.import_dataset(
                user=request.user, files=files, name=data["name"] or (data["files"][0].name or ""),
                schema_version=data["schema_version"] or None, ignore_existing_hed=data["ignore_existing_hed"],
                concurrency=data["concurrency"])
        except DatasetError as exc:  # a refused upload (the reader is plain Python: no field of its own)
            form.add_error("files", str(exc))
        except RequestError as exc:
            show_on_form(form, exc)
        else:
            logger.info("dataset %s imported by %s", project.pk, request.user)
            return redirect(project)
    projects = visible_projects(request.user).select_related("user")[:100]
    status = 400 if request.method == "POST" else 200
    return render(request, "annotations/datasets/list.html", {"form": form, "projects": projects}, status=status)


@login_required
@require_GET
def dataset_detail(request: HttpRequest, pk: Any) -> HttpResponse:
    project = _project(request, pk)
    wanted = request.GET.get("status", "")
    if wanted and wanted not in LEVEL_FILTERS:
        wanted = ""
    return render(request, "annotations/datasets/detail.html",
                  page_context(project, status=wanted, page=request.GET.get("page", 1)))


@login_required
@require_POST
def dataset_annotate(request: HttpRequest, pk: Any) -> HttpResponse:
    project = _project(request, pk)
    try:
        sessions = services.start_annotation(project, user=request.user)
    except RequestError as exc:  # already being annotated, or past HEDIT_DATASET_RATE
        show_as_message(request, exc)
        return redirect(project)
    else:
        if sessions:
            messages.success(request, f"Annotating {len(sessions)} level(s), {project.concurrency} at a time.")
        else:
            messages.info(request, "Every level already has an annotation; nothing to annotate.")
    return redirect(project)


@login_required
@require_POST
def level_annotate(request: HttpRequest, pk: Any, level_id: int) -> HttpResponse:
    """Annotate one level again (for example after its description changed)."""
    project = _project(request, pk)
    level = get_object_or_404(DatasetLevel, pk=level_id, column__task__project=project)
    try:
        services.start_annotation(project, user=request.user, levels=[level])
    except RequestError as exc:
        show_as_message(request, exc)
    return redirect(f"{project.get_absolute_url()}#level-{level.pk}")


def _form_errors(form: Any) -> str:
    return "; ".join(str(e) for errors in form.errors.values() for e in errors)


@login_required
@require_POST
def column_edit(request: HttpRequest, pk: Any, column_id: int) -> HttpResponse:
    """Change a column's kind, or (with ``template``) a value column's ``#`` template."""
    project = _project(request, pk)
    column = get_object_or_404(DatasetColumn.objects.select_related("task__project"), pk=column_id,
                               task__project=project)
    form: Any = TemplateForm(request.POST) if "template" in request.POST else ColumnKindForm(request.POST)
    if not form.is_valid():
        messages.error(request, sentence(_form_errors(form)))
    else:
        try:
            if isinstance(form, TemplateForm):
                services.set_column_template(column, form.cleaned_data["template"])
            else:
                services.set_column_kind(column, form.cleaned_data["kind"])
        except RequestError as exc:
            show_as_message(request, exc)
    return redirect(f"{project.get_absolute_url()}#column-{column.pk}")


@login_required
@require_POST
def level_edit(request: HttpRequest, pk: Any, level_id: int) -> HttpResponse:
    """A human description for a level; annotate it again for the description to count."""
    project = _project(request, pk)
    level = get_object_or_404(DatasetLevel, pk=level_id, column__task__project=project)
    form = LevelDescriptionForm(request.POST)
    if not form.is_valid():
        messages.error(request, sentence(_form_errors(form)))
    else:
        try:
            services.set_level_description(level, form.cleaned_data["description"])
        except RequestError as exc:
            show_as_message(request, exc)
    return redirect(f"{project.get_absolute_url()}#level-{level.pk}")


@login_required
@require_GET
def review_next(request: HttpRequest, pk: Any) -> HttpResponse:
    """The run of the next level that needs a reviewer's look, with the existing review tools."""
    project = _project(request, pk)
    state = next_to_review(level_states(project))
    if state is None:
        messages.info(request, "No level is waiting for a review.")
        return redirect(project)
    return redirect("annotations:session-detail", pk=state.session_id or state.latest_session_id)


@login_required
@require_GET
def task_sidecar_page(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    """A task's sidecar, validated with every events file; ``?format=json|tsv`` downloads it."""
    project = _project(request, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    fmt = request.GET.get("format", "")
    if fmt not in ("", "json", "tsv"):
        return HttpResponse("format must be json or tsv", status=400, content_type="text/plain")
    result = task_sidecar(project, task_row, validate=not fmt)
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
    context = {"project": project, "task": task_row, "result": result, "rows": result.issue_rows(),
               "version": services.validation_version(project),
               "preview": json.dumps(result.sidecar, indent=2, ensure_ascii=False)}
    return render(request, "annotations/datasets/sidecar.html", context)


@login_required
@require_GET
def dataset_download(request: HttpRequest, pk: Any) -> FileResponse:
    """The dataset's files with the new sidecars in place, as one zip."""
    project = _project(request, pk)
    if not project.tasks.exists():
        raise Http404("This dataset has no tasks.")
    spool = tempfile.SpooledTemporaryFile(max_size=ZIP_SPOOL_BYTES)  # noqa: SIM115 - FileResponse closes it
    write_zip(project, spool)
    spool.seek(0)
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in project.name)[:80] or "dataset"
    return FileResponse(spool, as_attachment=True, filename=f"{name}_hed.zip", content_type="application/zip")
