"""Acceptance rules: what a lab requires of a sidecar before accepting it, checked on every new revision.

A rule is a HED query and what must hold of the rows it matches: none (``== 0``), some (``> 0``), or as many
as the rows of one level of one column (``== rows of level X of column Y``; the level's count from the
upload). Rows are the events files' rows with a matching event (a row's ``Delay`` group is its own event);
each rule says whether rows are searched with their ongoing events (context) and with definitions replaced
by their content (by default: each row's own HED, definitions expanded, so ``@Event`` finds the rows with
no event type whatever their definitions hold).

When the job stores a task's sidecar, :func:`revision_stored` (called from :mod:`annotations.datasets.results`
through :data:`annotations.hooks.REVISION_STORED`) asks the background task to check the project's rules on
it; the verdicts are kept per rule, task and revision, so the project page, the sidecar page and the downloads
read them without searching again. The defaults offered (:func:`add_default_rules`): every row has an event
type, and every condition level the sidecar defines occurs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django_tasks import task as background_task

from annotations.errors import FieldError
from annotations.models import (
    AcceptanceCheck,
    AcceptanceRule,
    DatasetLevel,
    DatasetProject,
    DatasetTask,
    Expectation,
    SidecarResult,
)
from annotations.usage.revisions import Revision, project_tasks, task_events
from annotations.usage.services import clean_queries, configured
from bidsdata.usage import Options
from bidsdata.usage.design import condition_levels

logger = logging.getLogger(__name__)

EVENT_TYPE_RULE = "Every row has an event type"


def rule_options(rule: AcceptanceRule) -> Options:
    return Options(include_context=rule.include_context, replace_defs=rule.replace_defs)


def _cleaned(project: DatasetProject, *, name: str, query: str, expect: str, task: str = "", column: str = "",
             level: str = "", include_context: bool = False, replace_defs: bool = True) -> dict[str, Any]:
    """A rule's fields, its query parsed by hedtools and its task, column and level known; 400s name the field."""
    query = clean_queries([query], "query")[0]
    if expect not in Expectation.values:
        raise FieldError("expect", f"expect must be one of: {', '.join(Expectation.values)}")
    tasks = set(project.tasks.values_list("name", flat=True))
    if task and task not in tasks:
        raise FieldError("task", f"no task {task!r}; this dataset has: {', '.join(sorted(tasks))}")
    if expect == Expectation.LEVEL_ROWS:
        levels = DatasetLevel.objects.filter(column__task__project=project, column__name=column, value=level)
        if task:
            levels = levels.filter(column__task__name=task)
        if not column or not levels.exists():
            raise FieldError("level", f"no level {level!r} of column {column!r}"
                             + (f" in task {task!r}" if task else " in this dataset"))
    else:
        column = level = ""
    return {"task": task, "name": name.strip()[:200] or query[:200], "query": query, "expect": expect,
            "column": column, "level": level, "include_context": include_context, "replace_defs": replace_defs}


def create_rule(project: DatasetProject, **fields: Any) -> AcceptanceRule:
    """A new rule of *project* (:func:`_cleaned`'s fields)."""
    return AcceptanceRule.objects.create(project=project, **_cleaned(project, **fields))


def update_rule(rule: AcceptanceRule, **fields: Any) -> AcceptanceRule:
    """*rule* with new fields (checked as a new rule's); its verdicts are forgotten (checked again)."""
    for key, value in _cleaned(rule.project, **fields).items():
        setattr(rule, key, value)
    with transaction.atomic():
        rule.save()
        rule.checks.all().delete()
    return rule


def add_default_rules(project: DatasetProject) -> list[AcceptanceRule]:
    """The rules every lab wants, those the project lacks: each row has an event type (``@Event`` matches no
    row) and, per task, each condition level its newest sidecar defines occurs (``Def/<level>`` matches)."""
    have = set(project.acceptance_rules.values_list("task", "query", "expect"))
    made = []
    if ("", "@Event", Expectation.NONE) not in have:
        made.append(create_rule(project, name=EVENT_TYPE_RULE, query="@Event", expect=Expectation.NONE))
    for task in project.tasks.all():
        row = SidecarResult.objects.filter(task=task).order_by("-created_at", "-id").only("sidecar").first()
        sidecar = row.sidecar if row is not None else task.original_sidecar
        version = project.hed_version or project.schema_version
        for factor, levels in condition_levels(sidecar or {}, version).items():
            for level in levels:
                query = f"Def/{level}"
                if (task.name, query, Expectation.SOME) not in have:
                    # Def/... found as itself: with definitions replaced it would be its content.
                    made.append(create_rule(project, name=f"Condition {factor}: {level} occurs", query=query,
                                            expect=Expectation.SOME, task=task.name, replace_defs=False))
    return made


def _expected(rule: AcceptanceRule, task: DatasetTask) -> int | None:
    return (DatasetLevel.objects.filter(column__task=task, column__name=rule.column, value=rule.level)
            .values_list("count", flat=True).first())


def _verdict(rule: AcceptanceRule, task: DatasetTask, matches: int | None) -> tuple[bool, int | None, str]:
    if matches is None:
        return False, None, "the query could not be run"
    if rule.expect == Expectation.NONE:
        return matches == 0, None, f"{matches} row(s) match; none should"
    if rule.expect == Expectation.SOME:
        return matches > 0, None, "no row matches; some should" if matches == 0 else f"{matches} row(s) match"
    expected = _expected(rule, task)
    if expected is None:
        return False, None, f"task {task.name!r} has no level {rule.level!r} of column {rule.column!r}"
    return matches == expected, expected, f"{matches} row(s) match; level {rule.level!r} has {expected}"


def check_revision(task: DatasetTask, revision: Revision) -> list[AcceptanceCheck]:
    """Every rule of *task*'s project that applies to it, checked on the stored *revision*, and kept."""
    rules = [r for r in task.project.acceptance_rules.all() if r.applies_to(task.name)]
    if not rules or revision.sidecar is None:
        return []
    configured()
    events = task_events(task.project, task, revision)
    kept = []
    for rule in rules:
        try:
            counts = events.counts([rule.query], rule_options(rule))
            matches: int | None = counts.matched_rows[0]
        except Exception as exc:  # a rule stored before hedtools changed, a worker lost: a failed check
            logger.warning("rule %s on %s: %s", rule.pk, task, exc)
            matches = None
        passed, expected, message = _verdict(rule, task, matches)
        try:
            check, _ = AcceptanceCheck.objects.update_or_create(
                rule=rule, task=task, digest=revision.name,
                defaults={"matches": matches, "expected": expected, "passed": passed, "message": message})
        except IntegrityError:  # checked by another worker at the same moment: the same verdict
            continue
        kept.append(check)
    # Verdicts on revisions the results no longer keep (the newest few are) go with them.
    AcceptanceCheck.objects.filter(task=task).exclude(
        digest__in=SidecarResult.objects.filter(task=task).values("digest")).delete()
    return kept


def revision_stored(task: DatasetTask, digest: str) -> None:
    """The sidecar-revision hook (:data:`annotations.hooks.REVISION_STORED`): a new sidecar revision of *task*
    is stored; its project's rules are checked in the background once the revision is committed (nothing to do
    without rules)."""
    if not AcceptanceRule.objects.filter(project_id=task.project_id).exists():
        return
    transaction.on_commit(lambda: check_acceptance_task.enqueue(task.pk, digest))


@background_task()
def check_acceptance_task(task_id: int, digest: str) -> str:
    """Check the project's rules on one stored sidecar revision."""
    task = DatasetTask.objects.select_related("project").filter(pk=task_id).first()
    row = SidecarResult.objects.filter(task_id=task_id, digest=digest).first() if task else None
    if task is None or row is None:
        return "gone"
    checks = check_revision(task, Revision(name=row.digest, sidecar=row.sidecar, created_at=row.created_at))
    return f"{sum(1 for c in checks if not c.passed)} failing"


@dataclass
class TaskAcceptance:
    """The rules' verdicts on a task's newest stored revision."""

    task: DatasetTask
    digest: str | None
    failing: list[AcceptanceCheck] = field(default_factory=list)
    passing: list[AcceptanceCheck] = field(default_factory=list)
    unchecked: list[AcceptanceRule] = field(default_factory=list)

    @property
    def has_rules(self) -> bool:
        return bool(self.failing or self.passing or self.unchecked)


def task_acceptance(task: DatasetTask, rules: list[AcceptanceRule] | None = None) -> TaskAcceptance:
    """The verdicts on *task*'s newest stored sidecar (rules not yet checked on it listed apart)."""
    rules = list(task.project.acceptance_rules.all()) if rules is None else rules
    mine = [r for r in rules if r.applies_to(task.name)]
    row = SidecarResult.objects.filter(task=task).order_by("-created_at", "-id").values_list("digest", flat=True)
    digest = row.first()
    found = TaskAcceptance(task=task, digest=digest)
    if not mine:
        return found
    checks = {c.rule_id: c for c in AcceptanceCheck.objects.filter(task=task, digest=digest or "")
              .select_related("rule")}
    for rule in mine:
        check = checks.get(rule.pk)
        if check is None:
            found.unchecked.append(rule)
        elif check.passed:
            found.passing.append(check)
        else:
            found.failing.append(check)
    return found


def project_failures(project: DatasetProject) -> list[AcceptanceCheck]:
    """Every failing verdict on the newest stored sidecar of each of *project*'s tasks (what a download
    asks the lab to confirm)."""
    rules = list(project.acceptance_rules.all())
    if not rules:
        return []
    return [check for task in project_tasks(project) for check in task_acceptance(task, rules).failing]


def check_now(project: DatasetProject, task: DatasetTask) -> list[AcceptanceCheck]:
    """Check the rules on *task*'s newest stored sidecar now (a rule added or changed)."""
    row = SidecarResult.objects.filter(task=task).order_by("-created_at", "-id").first()
    if row is None:
        return []
    return check_revision(task, Revision(name=row.digest, sidecar=row.sidecar, created_at=row.created_at))


def check_project_now(project: DatasetProject) -> dict[str, Any]:
    """:func:`check_now` for every task: how many verdicts fail, per task."""
    return {task.name: sum(1 for c in check_now(project, task) if not c.passed) for task in project_tasks(project)}


__all__ = ["EVENT_TYPE_RULE", "TaskAcceptance", "add_default_rules", "check_acceptance_task", "check_now",
           "check_project_now", "check_revision", "create_rule", "project_failures", "revision_stored",
           "rule_options", "task_acceptance", "update_rule"]
