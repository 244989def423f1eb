"""The level page's fix: what it shows of the level's issue and rows, its correction, and the fragment it polls.

Thin views over :mod:`.level_fix`; the description form and Save & next stay in :mod:`.views`.
"""

from __future__ import annotations

import logging
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotations.access import can_correct_level, can_edit_project
from annotations.datasets.forms import LevelDescriptionForm
from annotations.datasets.level_fix import correct_level, level_fix
from annotations.datasets.levels import needs_work, task_states
from annotations.datasets.selectors import project_for
from annotations.errors import on_form
from annotations.models import DatasetLevel, DatasetProject

logger = logging.getLogger(__name__)


class LevelCorrectionForm(forms.Form):
    # Its length and validity are checked by the correction itself (annotations.corrections), with the issues named.
    hed = forms.CharField(label="Corrected annotation",
                          widget=forms.Textarea(attrs={"rows": 3, "id": "level-hed"}))


def _level(project: DatasetProject, level_id: int) -> DatasetLevel:
    level = get_object_or_404(DatasetLevel.objects.select_related("column__task"), pk=level_id,
                              column__task__project=project)
    level.column.task.project = project
    return level


def preview_schema(version: str) -> str:
    """The standard schema of *version* (``8.4.0`` of ``8.4.0,sc:score_1.0.0``): what the live preview checks
    a correction with as it is typed (the correction itself is validated with the whole list)."""
    return next((v for v in version.split(",") if ":" not in v and "_" not in v), version)


def level_page_context(request: HttpRequest, project: DatasetProject, level: DatasetLevel, *,
                       form: Any = None, correction: LevelCorrectionForm | None = None) -> dict[str, Any]:
    """The level page: its state, the issue that sent the lab here, its rows, and the correction form."""
    states = task_states(level)
    state = next(s for s in states if s.level.pk == level.pk)
    remaining = sum(1 for s in states if s.level.pk != level.pk and needs_work(s))
    if correction is None:
        correction = LevelCorrectionForm(initial={"hed": state.annotation})
    if form is None:  # a correction refused: the description box keeps the level's description
        form = LevelDescriptionForm(initial={"description": level.description})
    return {"project": project, "task": level.column.task, "column": level.column, "level": level,
            "preview_schema": preview_schema(project.schema_version),
            "state": state, "form": form, "remaining": remaining, "fix": level_fix(project, level, states),
            "correction": correction, "can_edit": can_edit_project(request.user, project),
            "can_correct": can_correct_level(request.user, project)}


@login_required
@require_POST
def level_correct(request: HttpRequest, pk: Any, level_id: int) -> HttpResponse:
    """Correct the level's annotation on its page; the page then shows the rows as validated again."""
    project = project_for(request.user, pk)
    level = _level(project, level_id)
    form = LevelCorrectionForm(request.POST)
    if form.is_valid():
        state = next(s for s in task_states(level) if s.level.pk == level.pk)
        with on_form(form) as outcome:  # empty, unchanged, not validating, no run: beside the field
            correct_level(project, state, request.user, form.cleaned_data["hed"])
        if not outcome.failed:
            messages.success(request, "Correction saved; the task's rows are checked again with it.")
            return redirect("annotations:dataset-level", pk=project.pk, level_id=level.pk)
    context = level_page_context(request, project, level, correction=form)
    return render(request, "annotations/datasets/level_edit.html", context, status=400)


@login_required
@require_GET
def level_fix_panel(request: HttpRequest, pk: Any, level_id: int) -> HttpResponse:
    """The level's issues and rows: the page polls it while the task's sidecar is validated again."""
    project = project_for(request.user, pk)
    level = _level(project, level_id)
    states = task_states(level)
    return render(request, "annotations/datasets/partials/level_fix.html",
                  {"project": project, "level": level, "column": level.column, "task": level.column.task,
                   "fix": level_fix(project, level, states)})
