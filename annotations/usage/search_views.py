"""The Search tab of a dataset project: queries checked as typed, counts per task and file, matching rows
(paged), their TSV, and the project's saved queries.

Thin views over :mod:`.services`; anyone who sees the project searches it (another user's is a 404), its
owner (and staff) keep its saved queries.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_POST

from annotations.access import can_edit_project
from annotations.datasets.selectors import project_for, project_for_edit
from annotations.errors import FieldError, NotFound, caught, on_form, sentence
from annotations.limits import check_query_length
from annotations.models import DatasetProject, DatasetTask, SavedQuery
from annotations.usage import services
from annotations.usage.forms import TOGGLES, SavedQueryForm, SearchForm
from annotations.usage.revisions import project_tasks, task_revisions
from bidsdata.usage import check_query

MAX_CHECKED_LINES = 20


def _tasks(project: DatasetProject, name: str) -> list[DatasetTask]:
    tasks = project_tasks(project)
    if not name:
        return tasks
    chosen = [t for t in tasks if t.name == name]
    if not chosen:
        raise NotFound(f"no task {name!r} in this dataset")
    return chosen


def _searches(request: HttpRequest, project: DatasetProject, form: SearchForm) -> list[services.TaskSearch]:
    """The form's queries over each chosen task (the rate counted once for the request)."""
    data = form.cleaned_data
    queries = services.clean_queries(form.queries())
    options = services.options_of(context=not data["no_context"], expand_defs=data["expand_defs"],
                                  remove_types=data["remove_types"])
    tasks = _tasks(project, data["task"])
    return [services.search_task(request.user, project, task, queries, options,
                                 revision=data["revision"] or None if data["task"] else None, count=i == 0)
            for i, task in enumerate(tasks)]


def _shown(searches: list[services.TaskSearch], name: str) -> services.TaskSearch | None:
    """The task whose rows are shown: the one chosen, else the first with matches."""
    if name or len(searches) == 1:
        return searches[0] if searches else None
    return next((s for s in searches if s.counts.any_matches), None)


def _pages(request: HttpRequest, shown: services.TaskSearch | None) -> dict[str, Any]:
    """The query strings of the rows' pager and download (the search as asked, the page or task set)."""
    if shown is None:
        return {}
    asked = request.GET.copy()
    asked.pop("page", None)
    asked["task"] = shown.task.name
    links = {"tsv": asked.urlencode()}
    current = int(request.GET.get("page") or 1)
    for name, number in (("previous", current - 1), ("next", current + 1)):
        if 1 <= number <= shown.pages:
            asked["page"] = str(number)
            links[name] = asked.urlencode()
    return links


@login_required
@require_GET
def search_page(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for(request.user, pk)
    form = SearchForm(request.GET or None)
    context: dict[str, Any] = {"project": project, "form": form, "toggles": TOGGLES, "tab": "search",
                               "tasks": project_tasks(project), "can_edit": can_edit_project(request.user, project),
                               "saved": list(project.saved_queries.all()), "save_form": SavedQueryForm()}
    chosen = next((t for t in context["tasks"] if t.name == request.GET.get("task")), None)
    context["revisions"] = task_revisions(project, chosen) if chosen is not None else []
    status = 200
    if request.GET and form.is_valid():
        with on_form(form) as outcome:
            searches = _searches(request, project, form)
            shown = _shown(searches, form.cleaned_data["task"])
            page = form.cleaned_data["page"] or 1
            context.update(searches=searches, shown=shown, rows=shown.page(page) if shown else [], page=page,
                           pages=_pages(request, shown))
        status = outcome.status if outcome.failed else 200
    elif request.GET:
        status = 400
    return render(request, "annotations/usage/search.html", context, status=status)


@login_required
@require_GET
def query_check(request: HttpRequest, pk: Any) -> HttpResponse:
    """hedtools' verdict on each line of the query box, as it is typed (a fragment)."""
    project_for(request.user, pk)
    text = request.GET.get("q", "")
    lines = [line for line in text.splitlines() if line.strip()][:MAX_CHECKED_LINES]
    checks = []
    for index, line in enumerate(lines):
        try:
            check_query_length(line)
        except FieldError as exc:
            checks.append({"query": line[:60] + "…", "ok": False, "message": exc.message, "position": None})
            continue
        found = check_query(line, index=index)
        checks.append({"query": line, "ok": found.ok, "parsed": found.parsed, "warnings": found.warnings,
                       "message": found.error.message if found.error else "",
                       "position": found.error.position if found.error else None,
                       "before": line[:found.error.position] if found.error else "",
                       "after": line[found.error.position:] if found.error else ""})
    return render(request, "annotations/usage/partials/query_check.html", {"checks": checks})


@login_required
@require_GET
def search_rows_tsv(request: HttpRequest, pk: Any) -> HttpResponse:
    """Every matching row of one task as TSV (file, row, onset, a 0/1 column per query, hed), streamed."""
    project = project_for(request.user, pk)
    form = SearchForm(request.GET)
    if not form.is_valid():
        return HttpResponse(sentence("; ".join(str(e) for errs in form.errors.values() for e in errs)),
                            status=400, content_type="text/plain; charset=utf-8")
    tasks = _tasks(project, form.cleaned_data["task"])
    if len(tasks) != 1:
        raise FieldError("task", "choose a task to download its rows")
    found = _searches(request, project, form)[0]
    response = StreamingHttpResponse(found.tsv(), content_type="text/tab-separated-values; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"task-{found.task.name}_search.tsv")
    return response


@login_required
@require_POST
def saved_query_create(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    form = SavedQueryForm(request.POST)
    with caught() as outcome:
        if not form.is_valid():
            raise FieldError("query", "; ".join(str(e) for errs in form.errors.values() for e in errs))
        query = services.clean_queries([form.cleaned_data["query"]], "query")[0]
        try:
            SavedQuery.objects.create(project=project, name=form.cleaned_data["name"].strip(), query=query,
                                      created_by=request.user)
        except IntegrityError:
            raise FieldError("name", f"a saved query is named {form.cleaned_data['name']!r} already") from None
    if outcome.failed:
        messages.error(request, outcome.message)
    else:
        messages.success(request, f"Saved “{form.cleaned_data['name']}”.")
    return redirect("annotations:usage-search", pk=project.pk)


@login_required
@require_POST
def saved_query_delete(request: HttpRequest, pk: Any, query_id: int) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    saved = get_object_or_404(SavedQuery, pk=query_id, project=project)
    saved.delete()
    messages.success(request, f"Deleted “{saved.name}”.")
    return redirect("annotations:usage-search", pk=project.pk)
