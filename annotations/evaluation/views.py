"""The evaluation page: which model configuration annotates this lab's events best.

Thin: the scope comes from :mod:`.scope`, the figures from :mod:`.selectors`, their columns from
:mod:`.columns`; starting, cancelling and watching go through :mod:`.services` and :mod:`.batches`. Plain
forms and links work without script; htmx only refreshes the running evaluations' progress.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from annotations.access import can_see_all
from annotations.datasets.selectors import visible_projects
from annotations.errors import NotFound, as_message, caught, on_form
from annotations.evaluation import services
from annotations.evaluation.batches import cancel_evaluation, may_cancel, progress_of, start_evaluation
from annotations.evaluation.chart import f1_cost_chart
from annotations.evaluation.columns import COLUMNS, DEFAULT_SORT, sorted_rows
from annotations.evaluation.downloads import download
from annotations.evaluation.forms import StartForm
from annotations.evaluation.scope import Scope, read_scope
from annotations.evaluation.selectors import MAX_RUNS, Table, evaluation_table
from annotations.evaluation.sets import visible_set, visible_sets
from annotations.evaluation.table import ModelRow
from annotations.evaluation.watch import default_schema, watches
from annotations.history.filters import BY_NAME
from annotations.models import EvaluationBatch

KINDS = (("", "All runs"), ("hide", "The lab's own runs"), ("only", "Evaluation runs"))
RECENT_BATCHES = 8


def visible_batches(user: Any) -> QuerySet[EvaluationBatch]:
    """Evaluations *user* may follow: those they started or of their sets; reviewers and staff see every one."""
    qs = EvaluationBatch.objects.select_related("set")
    return qs if can_see_all(user) else qs.filter(Q(user=user) | Q(set__owner=user))


def _table(request: HttpRequest) -> tuple[Table | None, Scope | None, str]:
    """The table of the scope the query asks for, or the 400 message; a project or set not visible is a 404."""
    with caught() as outcome:
        scope = read_scope(request.user, request.GET)
    if outcome.failed:
        if outcome.status == 404:
            raise outcome.error  # type: ignore[misc]
        return None, None, outcome.message
    return evaluation_table(scope, request.user), scope, ""


def _header(column: Any, sort: str, descending: bool, scope: Scope | None) -> dict[str, Any]:
    active = column.key == sort
    # A first click sorts figures best first (descending), the model's name from A.
    first_descending = column.numeric
    query = {**(scope.query if scope else {}), "sort": column.key,
             "dir": ("asc" if descending else "desc") if active else ("desc" if first_descending else "asc")}
    return {"key": column.key, "label": column.label, "help": column.help, "numeric": column.numeric,
            "query": urlencode(query), "active": active,
            "aria_sort": ("descending" if descending else "ascending") if active else "none"}


def _cells(row: ModelRow) -> list[dict[str, Any]]:
    return [{"key": c.key, "label": c.label, "text": c.cell(row), "detail": c.detail(row), "numeric": c.numeric}
            for c in COLUMNS]


def _scope_fields(request: HttpRequest, scope: Scope | None) -> dict[str, Any]:
    params = request.GET
    return {
        "projects": [(str(p.pk), p.name) for p in visible_projects(request.user).order_by("name")[:200]],
        "sets": [(str(s.pk), s.name) for s in visible_sets(request.user)[:200]],
        "kinds": KINDS,
        "values": {name: str(params.get(name) or "") for name in ("project", "set", "evaluations", "date_from",
                                                                  "date_to", "user")},
        "show_user": can_see_all(request.user),
        "user_label": BY_NAME["user"].label,
    }


def _batches(user: Any) -> dict[str, Any]:
    """The recent evaluations with their progress, and whether one runs (the panel then refreshes itself)."""
    found = [{"batch": batch, "progress": progress_of(batch), "may_cancel": may_cancel(user, batch)}
             for batch in visible_batches(user)[:RECENT_BATCHES]]
    return {"batches": found, "batches_running": any(b["batch"].status == "running" for b in found)}


@login_required
@require_GET
def evaluation_page(request: HttpRequest) -> HttpResponse:
    table, scope, error = _table(request)
    sort = request.GET.get("sort") or DEFAULT_SORT
    descending = request.GET.get("dir", "desc") != "asc"
    rows = sorted_rows(table.rows, sort, descending) if table else []
    context = {
        "table": table, "scope": scope, "error": error, "max_runs": MAX_RUNS,
        "headers": [_header(c, sort, descending, scope) for c in COLUMNS],
        "rows": [{"row": row, "cells": _cells(row)} for row in rows],
        "chart": f1_cost_chart(rows), "download_query": scope.query_string if scope else "",
        "watches": watches(request.user), "form": StartForm(user=request.user), **_batches(request.user),
        **_scope_fields(request, scope),
    }
    return render(request, "annotations/evaluation/page.html", context, status=400 if error else 200)


@login_required
@require_GET
def evaluation_download(request: HttpRequest, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "json"):
        raise Http404("No such format.")
    table, _, error = _table(request)
    if table is None:
        return HttpResponse(error, status=400, content_type="text/plain; charset=utf-8")
    return download(table, fmt)


@login_required
@require_GET
def evaluation_progress(request: HttpRequest) -> HttpResponse:
    """The evaluations panel alone (htmx refreshes it while one runs)."""
    return render(request, "annotations/evaluation/partials/batches.html", _batches(request.user))


@login_required
@require_POST
def evaluation_start(request: HttpRequest) -> HttpResponse:
    form = StartForm(request.POST, request.FILES, user=request.user)
    if form.is_valid():
        with on_form(form) as outcome:
            batch = services.start_from_form(request.user, form.cleaned_data)
        if not outcome.failed:
            messages.success(request, f"Evaluating {batch.set.name} with {batch.model or 'your model'}: "
                                      f"{batch.total} runs, {batch.concurrency} at a time.")
            return redirect(f"{reverse('annotations:evaluation')}?{urlencode({'set': str(batch.set_id)})}")
    table, scope, error = None, None, ""
    context = {"table": table, "scope": scope, "error": error, "headers": [], "rows": [], "chart": "",
               "watches": [], "form": form, "max_runs": MAX_RUNS, **_batches(request.user),
               **_scope_fields(request, scope)}
    return render(request, "annotations/evaluation/page.html", context, status=400)


@login_required
@require_POST
def evaluation_cancel(request: HttpRequest, pk: Any) -> HttpResponse:
    batch = get_object_or_404(visible_batches(request.user), pk=pk)
    with as_message(request):
        cancel_evaluation(batch, request.user)
        messages.success(request, f"The evaluation of {batch.set.name} is cancelled.")
    return redirect("annotations:evaluation")


@login_required
@require_POST
def set_watch(request: HttpRequest, pk: Any) -> HttpResponse:
    evaluation_set = visible_set(request.user, pk)
    with as_message(request):
        watched = request.POST.get("watch") == "on"
        services.set_watched(evaluation_set, request.user, watched)
        messages.success(request, f"{evaluation_set.name} is {'watched' if watched else 'no longer watched'}.")
    return redirect("annotations:evaluation")


@login_required
@require_POST
def set_rerun(request: HttpRequest, pk: Any) -> HttpResponse:
    """Evaluate the set again with its last evaluation's model (else the user's own) as configured now."""
    evaluation_set = visible_set(request.user, pk)
    latest = evaluation_set.batches.order_by("-created_at").first()
    with as_message(request):
        if latest is None:
            raise NotFound("This set was never evaluated.")
        batch = start_evaluation(evaluation_set, user=request.user, model=latest.model_choice,
                                 schema_version=default_schema())
        messages.success(request, f"Evaluating {evaluation_set.name} again with {batch.model or 'your model'}.")
    return redirect("annotations:evaluation")
