"""Using a project's annotations: its saved queries, its acceptance rules, and each rule's verdict per revision.

An acceptance rule is a HED query and what must hold of the rows it matches (none, some, or as many as the
rows of one level of one column); every sidecar revision a task's job stores is checked against the
project's rules (:mod:`annotations.usage.acceptance`), and the verdict is kept per rule, task and revision
(``digest``: the :class:`~annotations.models.SidecarResult` it was checked on).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotations.models.datasets import DatasetProject, DatasetTask
from bidsdata.limits import MAX_NAME_CHARS, MAX_TASK_CHARS


class SavedQuery(models.Model):
    """A query a project keeps under a name, for its search page and the API."""

    project = models.ForeignKey(DatasetProject, on_delete=models.CASCADE, related_name="saved_queries")
    name = models.CharField(max_length=200)
    query = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("name", "id")
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="saved_query_unique_name")]

    def __str__(self) -> str:
        return self.name


class Expectation(models.TextChoices):
    NONE = "none", "matches no row (== 0)"
    SOME = "some", "matches at least one row (> 0)"
    LEVEL_ROWS = "level_rows", "matches as many rows as a level of a column"


class AcceptanceRule(models.Model):
    """A query and what must hold of it before a sidecar is accepted: checked on every new revision."""

    project = models.ForeignKey(DatasetProject, on_delete=models.CASCADE, related_name="acceptance_rules")
    task = models.CharField(max_length=MAX_TASK_CHARS, blank=True,
                            help_text="The task it applies to; empty: every task.")
    name = models.CharField(max_length=200)
    query = models.TextField()
    expect = models.CharField(max_length=16, choices=Expectation.choices)
    column = models.CharField(max_length=MAX_NAME_CHARS, blank=True, help_text="With level_rows: the events column.")
    level = models.CharField(max_length=MAX_NAME_CHARS, blank=True,
                             help_text="With level_rows: the level of that column.")
    include_context = models.BooleanField(default=False, help_text="Search each row with its ongoing events.")
    replace_defs = models.BooleanField(default=True, help_text="Search each row with its definitions' content.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("created_at", "id")

    def __str__(self) -> str:
        return self.name

    def applies_to(self, task: str) -> bool:
        return not self.task or self.task == task

    @property
    def wording(self) -> str:
        """What must hold, in a few words."""
        if self.expect == Expectation.NONE:
            return "matches no row"
        if self.expect == Expectation.SOME:
            return "matches at least one row"
        return f"matches as many rows as level {self.level!r} of column {self.column!r}"


class AcceptanceCheck(models.Model):
    """A rule's verdict on one task's sidecar revision."""

    rule = models.ForeignKey(AcceptanceRule, on_delete=models.CASCADE, related_name="checks")
    task = models.ForeignKey(DatasetTask, on_delete=models.CASCADE, related_name="acceptance_checks")
    digest = models.CharField(max_length=64, help_text="The SidecarResult checked (its digest).")
    matches = models.IntegerField(null=True, help_text="Rows with an event the query matches.")
    expected = models.IntegerField(null=True, help_text="With level_rows: the level's rows.")
    passed = models.BooleanField(default=False)
    message = models.TextField(blank=True)
    checked_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("rule", "task")
        constraints = [models.UniqueConstraint(fields=["rule", "task", "digest"], name="acceptance_check_unique")]
        indexes = [models.Index(fields=["task", "digest"], name="acceptance_check_revision")]

    def __str__(self) -> str:
        return f"{self.rule} on {self.task} @ {self.digest[:8]}: {'pass' if self.passed else 'fail'}"
