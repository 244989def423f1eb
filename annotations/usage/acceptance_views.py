"""The Acceptance tab (a project's rules and their verdicts per task), the verdicts beside a task's card and
its sidecar, and the confirmation a download asks for while a rule fails. Thin views over :mod:`.acceptance`.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from annotations.access import can_edit_project
from annotations.datasets.selectors import project_for, project_for_edit
from annotations.errors import FieldError, caught
from annotations.models import AcceptanceRule, DatasetProject
from annotations.usage import acceptance
from annotations.usage.forms import RuleForm
from annotations.usage.revisions import project_tasks


def _verdicts(project: DatasetProject) -> list[acceptance.TaskAcceptance]:
    rules = list(project.acceptance_rules.all())
    return [acceptance.task_acceptance(task, rules) for task in project_tasks(project)]


@login_required
@require_GET
def acceptance_page(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for(request.user, pk)
    tasks = list(project.tasks.values_list("name", flat=True))
    return render(request, "annotations/usage/acceptance.html", {
        "project": project, "tab": "acceptance", "rules": list(project.acceptance_rules.all()),
        "verdicts": _verdicts(project), "form": RuleForm(tasks=tasks), "tasks": project_tasks(project),
        "can_edit": can_edit_project(request.user, project)})


def _checked(request: HttpRequest, project: DatasetProject) -> None:
    """The rules checked on each task's newest sidecar now, and the outcome said."""
    failing = acceptance.check_project_now(project)
    bad = {task: n for task, n in failing.items() if n}
    if bad:
        messages.warning(request, "Failing: " + "; ".join(f"task {t}: {n} rule{'s' if n > 1 else ''}"
                                                          for t, n in bad.items()) + ".")
    else:
        messages.success(request, "Every rule holds on each task's newest sidecar.")


@login_required
@require_POST
def rule_create(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    form = RuleForm(request.POST, tasks=list(project.tasks.values_list("name", flat=True)))
    with caught() as outcome:
        if not form.is_valid():
            field, errors = next(iter(form.errors.items()))
            raise FieldError(field, f"{field}: " + "; ".join(str(e) for e in errors))
        acceptance.create_rule(project, **form.cleaned_data)
    if outcome.failed:
        messages.error(request, outcome.message)
    else:
        _checked(request, project)
    return redirect("annotations:usage-acceptance", pk=project.pk)


@login_required
@require_POST
def rule_defaults(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    made = acceptance.add_default_rules(project)
    if made:
        messages.info(request, f"Added {len(made)} default rule{'s' if len(made) > 1 else ''}.")
        _checked(request, project)
    else:
        messages.info(request, "The project has every default rule already.")
    return redirect("annotations:usage-acceptance", pk=project.pk)


@login_required
@require_POST
def rules_check(request: HttpRequest, pk: Any) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    _checked(request, project)
    return redirect("annotations:usage-acceptance", pk=project.pk)


@login_required
@require_POST
def rule_delete(request: HttpRequest, pk: Any, rule_id: int) -> HttpResponse:
    project = project_for_edit(request.user, pk)
    rule = get_object_or_404(AcceptanceRule, pk=rule_id, project=project)
    rule.delete()
    messages.success(request, f"Deleted the rule “{rule.name}”.")
    return redirect("annotations:usage-acceptance", pk=project.pk)


@login_required
@require_GET
def task_acceptance_panel(request: HttpRequest, pk: Any, task: str) -> HttpResponse:
    """A task's verdicts, for its card on the project page and its sidecar page (a fragment)."""
    project = project_for(request.user, pk)
    task_row = get_object_or_404(project.tasks, name=task)
    return render(request, "annotations/usage/partials/task_acceptance.html",
                  {"project": project, "verdict": acceptance.task_acceptance(task_row)})


def _safe_next(request: HttpRequest, project: DatasetProject) -> str:
    """The download asked for: a URL of this site under the project's own pages, else the project page."""
    wanted = request.GET.get("next", "")
    home = project.get_absolute_url()
    if wanted.startswith(home) and url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()},
                                                                    require_https=request.is_secure()):
        return wanted
    return home


@login_required
@require_GET
def export_confirm(request: HttpRequest, pk: Any) -> HttpResponse:
    """A download of sidecars: straight on when every rule holds, else a page asking to confirm."""
    project = project_for(request.user, pk)
    target = _safe_next(request, project)
    name = request.GET.get("task", "")
    failing = acceptance.project_failures(project)
    if name:
        failing = [c for c in failing if c.task.name == name]
    if not failing:
        return redirect(target)
    return render(request, "annotations/usage/confirm_export.html",
                  {"project": project, "failing": failing, "target": target, "task_name": name,
                   "tasks": project_tasks(project)})
