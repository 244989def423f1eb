"""Dataset projects: a BIDS dataset's events files, their columns and levels, and the runs that annotate them.

The inventory is stored as rows (task -> column -> level) so that the project page, the API and the
annotation job can filter and count levels in the database; each level links to the annotation sessions
that annotated it (``AnnotationSession.dataset_level``).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from annotations.models.fields import CompressedTextField
from bidsdata.limits import MAX_NAME_CHARS, MAX_PATH_CHARS, MAX_TASK_CHARS, MAX_UNITS_CHARS


class ColumnKind(models.TextChoices):
    CATEGORICAL = "categorical", "Categorical"
    VALUE = "value", "Value"
    SKIP = "skip", "Skipped"


class JobStatus(models.TextChoices):
    READY = "ready", "Ready"
    ANNOTATING = "annotating", "Annotating"
    # Every run has ended; the job composes, validates and stores each task's sidecar (done comes after).
    VALIDATING = "validating", "Validating"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class DatasetProject(models.Model):
    """One uploaded BIDS dataset (or a set of events files) to be given HED sidecars."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="dataset_projects")
    name = models.CharField(max_length=200)
    hed_version = models.JSONField(null=True, blank=True, help_text="HEDVersion of dataset_description.json.")
    schema_version = models.CharField(max_length=200, help_text="The schema the levels are annotated with.")
    ignore_existing_hed = models.BooleanField(default=False)
    concurrency = models.PositiveSmallIntegerField(default=4)
    reuse_memory = models.BooleanField(
        default=True, help_text="Whether the levels' runs may start from reviewed annotations of other runs "
                                "(another project's corrections included).")
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.READY)
    error = models.TextField(blank=True)
    # The validating phase's lease (annotations.datasets.phases): the job validating keeps it fresh; a lapsed
    # one means that job died, and the sweep hands the phase on. The attempt fences off a job that lost it.
    validation_attempt = models.PositiveIntegerField(default=0)
    validation_lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at",)
        indexes = [models.Index(fields=["user", "-created_at"], name="dataset_user_created")]
        # Granted to the reviewers group (annotations.access holds the rules that ask it).
        permissions = [("view_all_projects", "Can see every user's dataset projects")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("annotations:dataset-detail", args=[self.pk])


class DatasetFile(models.Model):
    """A file of the dataset that matters for HED (events TSVs, sidecars, dataset_description.json)."""

    project = models.ForeignKey(DatasetProject, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=MAX_PATH_CHARS)
    text = CompressedTextField()

    class Meta:
        ordering = ("path",)
        constraints = [models.UniqueConstraint(fields=["project", "path"], name="dataset_file_unique_path")]

    def __str__(self) -> str:
        return self.path


class DatasetTask(models.Model):
    """A BIDS task: one sidecar at the dataset's root, written for all its events files."""

    project = models.ForeignKey(DatasetProject, on_delete=models.CASCADE, related_name="tasks")
    name = models.CharField(max_length=MAX_TASK_CHARS)
    sidecar_name = models.CharField(max_length=MAX_NAME_CHARS)
    events_files = models.JSONField(default=list)
    original_sidecar = models.JSONField(default=dict, blank=True)
    definition_keys = models.JSONField(default=list, blank=True)
    context = models.JSONField(default=dict, blank=True, help_text="What the dataset says of the task, for the "
                               "annotator: readme, task_name, task_description, instructions (bidsdata.context).")
    notes = models.JSONField(default=list, blank=True, help_text="Notes on its events files: [{path, message}].")
    # The sidecar asked for (annotations.datasets.results): the digest and the lease of its computation. A
    # lapsed lease with no result stored means the worker computing it died: it is asked for again.
    validating_digest = models.CharField(max_length=64, blank=True)
    validation_lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("name",)
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="dataset_task_unique_name")]

    def __str__(self) -> str:
        return self.name


class DatasetColumn(models.Model):
    """An events column of a task: categorical (levels), value (a ``#`` template) or skipped."""

    task = models.ForeignKey(DatasetTask, on_delete=models.CASCADE, related_name="columns")
    position = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=MAX_NAME_CHARS)
    kind = models.CharField(max_length=16, choices=ColumnKind.choices)
    detected_kind = models.CharField(max_length=16, choices=ColumnKind.choices)
    description = models.TextField(blank=True)
    needs_description = models.BooleanField(default=False)
    units = models.CharField(max_length=MAX_UNITS_CHARS, blank=True)
    distinct_values = models.PositiveIntegerField(default=0)
    sample_values = models.JSONField(default=list, blank=True)
    existing_template = models.TextField(blank=True, help_text="The uploaded sidecar's HED for a value column.")
    template = models.TextField(blank=True, help_text="The HED template written for a value column.")
    template_issues = models.JSONField(default=list, blank=True)
    by_pattern = models.BooleanField(default=False, help_text="A marker column annotated by form: its levels are "
                                     "its strings' forms (numbers as #), the sidecar gives each string its form's "
                                     "HED (bidsdata.patterns).")

    class Meta:
        ordering = ("task", "position")
        constraints = [models.UniqueConstraint(fields=["task", "name"], name="dataset_column_unique_name")]

    def __str__(self) -> str:
        return self.name


class DatasetLevel(models.Model):
    """A level of a categorical column, annotated by its own sessions."""

    column = models.ForeignKey(DatasetColumn, on_delete=models.CASCADE, related_name="levels")
    value = models.CharField(max_length=MAX_NAME_CHARS)
    count = models.PositiveIntegerField(default=0)
    description = models.TextField(blank=True)
    needs_description = models.BooleanField(default=False)
    existing_hed = models.TextField(blank=True, help_text="The uploaded sidecar's HED: the starting annotation.")
    existing_is_valid = models.BooleanField(null=True, help_text="Whether that HED validates with the sidecar.")

    class Meta:
        ordering = ("column", "value")
        constraints = [models.UniqueConstraint(fields=["column", "value"], name="dataset_level_unique_value")]

    def __str__(self) -> str:
        return f"{self.column.name}={self.value}"


class SidecarResult(models.Model):
    """A task's composed sidecar and what hedtools said of it, for one state of its annotations.

    ``digest`` names that state (the levels' annotations, the inventory with the user's edits, the schema):
    pages and the API answer from the result whose digest is current, at once, and say "validating" while
    the background task computes a newer one. Events files never change after the upload.
    """

    task = models.ForeignKey(DatasetTask, on_delete=models.CASCADE, related_name="sidecar_results")
    digest = models.CharField(max_length=64)
    sidecar = models.JSONField(default=dict)
    issues = models.JSONField(default=list)
    missing = models.JSONField(default=list)
    dropped = models.JSONField(default=list)
    composition = models.JSONField(default=dict, help_text="roles, factors, labelled levels, fallback reason")
    quality = models.JSONField(default=dict, help_text="bidsdata.quality's figures and row preview")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [models.UniqueConstraint(fields=["task", "digest"], name="sidecar_result_unique_digest")]

    def __str__(self) -> str:
        return f"{self.task} @ {self.digest[:12]}"
