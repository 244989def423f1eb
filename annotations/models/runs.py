"""A run and everything it produced, written as it happens so nothing a user saw is lost."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse


class SessionStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    INVALID = "invalid", "Invalid"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED_STATUSES = (SessionStatus.SUCCEEDED, SessionStatus.INVALID, SessionStatus.FAILED,
                     SessionStatus.CANCELLED)


class AnnotationSession(models.Model):
    """One run of the workflow for one description."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="annotation_sessions")
    description = models.TextField()
    options = models.JSONField(default=dict, blank=True)
    schema_version = models.CharField(max_length=200)
    status = models.CharField(max_length=16, choices=SessionStatus.choices, default=SessionStatus.QUEUED)
    error = models.TextField(blank=True)
    interrupted = models.BooleanField(default=False)
    cancel_requested = models.BooleanField(default=False)

    # The run's lease (annotations.runs.lease): a worker running it renews lease_expires_at; once it
    # lapses the worker is taken for dead and the run is queued again, up to HEDIT_RUN_MAX_ATTEMPTS.
    attempt = models.PositiveIntegerField(default=0, help_text="How many times a worker has started the run.")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    worker_id = models.CharField(max_length=64, blank=True)

    machine_annotation = models.TextField(blank=True, help_text="The workflow's final annotation.")
    final_annotation = models.TextField(blank=True, help_text="The reviewed annotation if corrected, "
                                        "else the machine's.")
    is_valid = models.BooleanField(null=True)
    is_faithful = models.BooleanField(null=True)
    is_complete = models.BooleanField(null=True)
    evaluation_feedback = models.TextField(blank=True)
    assessment_feedback = models.TextField(blank=True)
    # How much of the description the evaluation understood (0..1), whether that was too little to
    # trust its verdict, and the content words no HED tag is known for (agents.state.Evaluation).
    confidence = models.FloatField(null=True, blank=True)
    low_confidence = models.BooleanField(default=False)
    unknown_terms = models.JSONField(default=list, blank=True)
    # Run-level notes for the reader (events split, accepted annotation reused) and the events found.
    notes = models.JSONField(default=list, blank=True)
    events_count = models.PositiveIntegerField(default=0)
    # Ids of the reviewed sessions (the portal's memory) this run used as examples or reused outright.
    examples_used = models.JSONField(default=list, blank=True)
    # Who wrote the machine annotation: the offline annotator or the chat model that answered
    # (set when the run finishes, from its recorded calls), so a lab can tell results apart.
    producer = models.CharField(max_length=255, blank=True)
    # The owner asked for a review: the review queue lists such runs first until one is saved.
    review_requested_at = models.DateTimeField(null=True, blank=True)
    # The model configuration that ran it (annotations.runs.producer.configuration_fields), set when it starts:
    # the evaluation table groups runs by it. The offline annotator's provider is "offline".
    llm_provider = models.CharField(max_length=255, blank=True)
    llm_model = models.CharField(max_length=255, blank=True)
    llm_constraint = models.CharField(max_length=16, blank=True)
    prompt_version = models.CharField(max_length=32, blank=True)
    # An evaluation run (annotations.models.evaluation): its batch, and the item whose gold it is scored on.
    # The history leaves these out unless asked for.
    evaluation_batch = models.ForeignKey("annotations.EvaluationBatch", null=True, blank=True,
                                         on_delete=models.CASCADE, related_name="sessions")
    evaluation_item = models.ForeignKey("annotations.EvaluationItem", null=True, blank=True,
                                        on_delete=models.CASCADE, related_name="sessions")

    image = models.FileField(upload_to="stimuli/%Y/%m/", blank=True)
    image_description = models.TextField(blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # Usage totals, kept with the session so history and exports need no aggregation per row.
    iteration_count = models.PositiveIntegerField(default=0)
    llm_call_count = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)

    # Review summary, maintained by annotations.review.services services when a review changes.
    review_count = models.PositiveIntegerField(default=0)
    mean_rating = models.FloatField(null=True, blank=True)
    accept_count = models.PositiveIntegerField(default=0)
    needs_fix_count = models.PositiveIntegerField(default=0)
    reject_count = models.PositiveIntegerField(default=0)

    # A dataset project's level this run annotates (see annotations.models.datasets).
    dataset_level = models.ForeignKey("annotations.DatasetLevel", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="sessions")

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["-created_at"], name="session_created_idx"),
            models.Index(fields=["user", "-created_at"], name="session_user_created_idx"),
            models.Index(fields=["status", "-created_at"], name="session_status_created_idx"),
            models.Index(fields=["status", "lease_expires_at"], name="session_status_lease_idx"),
        ]
        # Granted to the reviewers group (annotations.access holds the rules that ask them).
        permissions = [
            ("view_all_sessions", "Can see every user's runs"),
            ("review_session", "Can rate, judge and correct runs"),
        ]

    def __str__(self) -> str:
        return f"{self.description[:60]} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("annotations:session-detail", kwargs={"pk": self.pk})

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Iteration(models.Model):
    """One annotation attempt."""

    session = models.ForeignKey(AnnotationSession, on_delete=models.CASCADE, related_name="iterations")
    number = models.PositiveIntegerField()
    annotation = models.TextField(blank=True)
    is_valid = models.BooleanField(null=True)
    feedback = models.TextField(blank=True)
    is_faithful = models.BooleanField(null=True)
    evaluation_feedback = models.TextField(blank=True)
    confidence = models.FloatField(null=True, blank=True)
    low_confidence = models.BooleanField(default=False)
    unknown_terms = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "number"]
        constraints = [models.UniqueConstraint(fields=["session", "number"], name="iteration_unique_number")]

    def __str__(self) -> str:
        return f"#{self.number} {self.annotation[:60]}"


class ValidationIssueRecord(models.Model):
    iteration = models.ForeignKey(Iteration, on_delete=models.CASCADE, related_name="issues")
    code = models.CharField(max_length=64)
    severity = models.CharField(max_length=16, default="error")
    message = models.TextField()
    hint = models.TextField(blank=True)
    tag = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["iteration", "id"]
        verbose_name = "validation issue"

    def __str__(self) -> str:
        return f"{self.code}: {self.message[:60]}"


class AgentStepRecord(models.Model):
    session = models.ForeignKey(AnnotationSession, on_delete=models.CASCADE, related_name="steps")
    # seq runs on across attempts: a run re-started after its worker died numbers its steps after the
    # lost attempt's, which stay; (session, seq) is unique, so no step is ever stored twice.
    seq = models.PositiveIntegerField()
    attempt = models.PositiveIntegerField(default=1)
    agent = models.CharField(max_length=32)
    iteration = models.PositiveIntegerField(default=0)
    action = models.CharField(max_length=255)
    input_summary = models.TextField(blank=True)
    output = models.TextField(blank=True)
    feedback = models.TextField(blank=True)
    issues = models.JSONField(default=list, blank=True)
    ok = models.BooleanField(default=True)
    duration_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "seq"]
        verbose_name = "agent step"
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="step_unique_seq")]

    def __str__(self) -> str:
        return f"{self.seq}. {self.agent}: {self.action}"


class FeedbackMessage(models.Model):
    session = models.ForeignKey(AnnotationSession, on_delete=models.CASCADE, related_name="feedback_messages")
    iteration = models.PositiveIntegerField(default=0)
    source = models.CharField(max_length=32, help_text="The agent that wrote it.")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "id"]

    def __str__(self) -> str:
        return f"{self.source}: {self.text[:60]}"


class LLMCallRecord(models.Model):
    session = models.ForeignKey(AnnotationSession, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="llm_calls")
    iteration = models.PositiveIntegerField(default=0)
    agent = models.CharField(max_length=32)
    model = models.CharField(max_length=255, blank=True)
    request = models.TextField(blank=True)
    response = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    latency_ms = models.FloatField(default=0)
    cache_hit = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    error_kind = models.CharField(max_length=16, blank=True, help_text="A failed call's kind: error, timeout or "
                                  "refused (agents.llm.base.LLMError.kind).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "id"]
        verbose_name = "LLM call"

    def __str__(self) -> str:
        return f"{self.agent} via {self.model or '?'}"
