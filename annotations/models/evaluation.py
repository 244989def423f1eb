"""Evaluation sets and their runs: which model configuration annotates a lab's events best.

A set is a list of descriptions with their gold annotation: a CSV's HED (the shared gold set's shape), or a
reviewed run whose reviewed annotation is the gold (read when the figures are, so a later correction moves
it). A batch is one evaluation of a set with one model: one ordinary run per item, tagged with the batch
(``AnnotationSession.evaluation_batch``) so that the history leaves it out by default and the evaluation
table finds its gold. The figures themselves are never stored: :mod:`annotations.evaluation.selectors`
computes them from the runs and reviews.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from annotations.models.datasets import DatasetProject
from annotations.models.runs import AnnotationSession


class SetSource(models.TextChoices):
    GOLD = "gold", "Gold annotations (a CSV of description and HED)"
    REVIEWED = "reviewed", "Reviewed annotations"


class EvaluationSet(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # None: made on the command line without --user (the command line's runs belong to nobody either).
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="evaluation_sets")
    project = models.ForeignKey(DatasetProject, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="evaluation_sets")
    name = models.CharField(max_length=200)
    source = models.CharField(max_length=16, choices=SetSource.choices)
    # Of the items (key, description, gold, source run): the same file evaluated again is the same set, so its
    # evaluations line up for the regression watch.
    digest = models.CharField(max_length=64)
    # Re-run with the owner's current model when the model, the prompts or the schema change.
    watch = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "digest"], name="evalset_owner_digest_idx")]

    def __str__(self) -> str:
        return self.name


class EvaluationItem(models.Model):
    set = models.ForeignKey(EvaluationSet, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    key = models.CharField(max_length=200, help_text="The CSV's id, or the reviewed run's id.")
    description = models.TextField()
    gold = models.TextField(blank=True, help_text="The CSV's HED; empty where a reviewed run is the gold.")
    source = models.ForeignKey(AnnotationSession, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="evaluation_items")
    dataset = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["set", "position"]
        constraints = [models.UniqueConstraint(fields=["set", "position"], name="evalitem_unique_position")]

    def __str__(self) -> str:
        return f"{self.key}: {self.description[:60]}"


class EvaluationBatch(models.Model):
    """One evaluation of a set with one model: its runs start a few at a time (``concurrency``)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    set = models.ForeignKey(EvaluationSet, on_delete=models.CASCADE, related_name="batches")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="evaluation_batches")
    # "offline", a model the user configured, or "" for whatever the user's runs use now.
    model_choice = models.CharField(max_length=255, blank=True)
    # The configuration it started with (each run records its own as it runs).
    provider = models.CharField(max_length=255, blank=True)
    model = models.CharField(max_length=255, blank=True)
    constraint = models.CharField(max_length=16, blank=True)
    prompt_version = models.CharField(max_length=32, blank=True)
    schema_version = models.CharField(max_length=200)
    options = models.JSONField(default=dict, blank=True)
    total = models.PositiveIntegerField()
    concurrency = models.PositiveSmallIntegerField(default=2)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "evaluation run"

    def __str__(self) -> str:
        return f"{self.set} with {self.model or self.model_choice or 'the current model'}"

    @property
    def status(self) -> str:
        if self.cancelled_at is not None:
            return "cancelled"
        return "done" if self.finished_at is not None else "running"
