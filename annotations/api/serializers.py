"""API representations of sessions, reviews and revisions, and the shapes of API input."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.schema import DEFAULT_SCHEMA_VERSION, UnknownSchemaVersion, check_version
from annotations.exports.formats import FORMATS
from annotations.models import (
    AgentStepRecord,
    AnnotationSession,
    Iteration,
    Review,
    Revision,
    ValidationIssueRecord,
    Verdict,
)
from annotations.records import dataset_level_of, summary_of, usage_of
from annotations.review_rules import is_corrected


def _check_schema_version(value: str) -> str:
    try:
        return check_version(value)
    except UnknownSchemaVersion as exc:
        raise serializers.ValidationError(str(exc)) from exc


# --- input ----------------------------------------------------------------------------------


class SessionCreateSerializer(serializers.Serializer):
    description = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=True,
                                        help_text="The event to annotate, in plain words (may be empty with an "
                                                  "image).")
    image = serializers.FileField(required=False, help_text="A PNG or JPEG stimulus image (multipart upload); "
                                                            "needs a vision model to be configured.")
    schema_version = serializers.CharField(required=False, allow_blank=True,
                                           help_text=f"HED schema version (default {DEFAULT_SCHEMA_VERSION}).")
    options = serializers.DictField(required=False, default=dict,
                                    help_text="Workflow options: max_validation_attempts, "
                                              "max_total_iterations, run_assessment, no_extend.")

    def validate_schema_version(self, value: str) -> str:
        return _check_schema_version(value) if value else value


class ReviewInputSerializer(serializers.Serializer):
    rating = serializers.IntegerField(min_value=1, max_value=5, help_text="1 (poor) to 5 (excellent).")
    verdict = serializers.ChoiceField(choices=Verdict.choices)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class RevisionInputSerializer(serializers.Serializer):
    hed = serializers.CharField(help_text="The corrected HED annotation.", max_length=20000)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
    draft = serializers.BooleanField(required=False, default=False,
                                     help_text="Keep it as a draft: stored even if it does not validate, "
                                               "never the final annotation.")


class DatasetLevelInputSerializer(serializers.Serializer):
    level = serializers.IntegerField(help_text="The id of a level of one of your dataset projects "
                                               "(GET /api/datasets/<id>/ lists them).")


class ValidateInputSerializer(serializers.Serializer):
    hed = serializers.CharField(help_text="A HED string.", max_length=20000)
    schema_version = serializers.CharField(required=False, default=DEFAULT_SCHEMA_VERSION)
    no_extend = serializers.BooleanField(required=False, default=False,
                                         help_text="Count tag extensions as errors.")

    def validate_schema_version(self, value: str) -> str:
        return _check_schema_version(value or DEFAULT_SCHEMA_VERSION)


class ExportQuerySerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=sorted(FORMATS))


# --- output ---------------------------------------------------------------------------------


class IssueSerializer(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.CharField()
    message = serializers.CharField()
    hint = serializers.CharField()
    tag = serializers.CharField()


class ValidateResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    schema_version = serializers.CharField()
    issues = IssueSerializer(many=True)


class IssueRecordSerializer(serializers.ModelSerializer):
    class Meta:
        model = ValidationIssueRecord
        fields = ["code", "severity", "message", "hint", "tag"]


class IterationSerializer(serializers.ModelSerializer):
    issues = IssueRecordSerializer(many=True, read_only=True)

    class Meta:
        model = Iteration
        fields = ["number", "annotation", "is_valid", "feedback", "is_faithful", "evaluation_feedback",
                  "confidence", "low_confidence", "unknown_terms", "issues", "created_at"]


class StepSerializer(serializers.ModelSerializer):
    class Meta:
        model = AgentStepRecord
        fields = ["seq", "agent", "iteration", "action", "input_summary", "output", "feedback", "issues", "ok",
                  "duration_ms", "created_at"]


class ReviewSerializer(serializers.ModelSerializer):
    reviewer = serializers.CharField(source="reviewer.get_username", read_only=True)

    class Meta:
        model = Review
        fields = ["id", "reviewer", "rating", "verdict", "comment", "created_at", "updated_at"]


class RevisionSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.get_username", read_only=True)

    class Meta:
        model = Revision
        fields = ["id", "author", "before", "after", "is_valid", "is_draft", "issues", "comment", "created_at"]


class UsageSerializer(serializers.Serializer):
    llm_calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField()


class ReviewSummarySerializer(serializers.Serializer):
    count = serializers.IntegerField()
    mean_rating = serializers.FloatField(allow_null=True)
    accept = serializers.IntegerField()
    needs_fix = serializers.IntegerField()
    reject = serializers.IntegerField()
    agreement = serializers.FloatField(allow_null=True, help_text="Share of reviewers agreeing with the "
                                                                  "most common verdict.")


class DatasetLevelSerializer(serializers.Serializer):
    project = serializers.UUIDField()
    task = serializers.CharField()
    column = serializers.CharField()
    level = serializers.CharField()
    level_id = serializers.IntegerField()


class SessionSerializer(serializers.ModelSerializer):
    """A session as history lists it."""

    url = serializers.SerializerMethodField()
    user = serializers.SerializerMethodField()
    status_display = serializers.CharField(source="get_status_display", read_only=True)
    corrected = serializers.SerializerMethodField()
    usage = serializers.SerializerMethodField()
    review_summary = serializers.SerializerMethodField()
    dataset_level = serializers.SerializerMethodField()

    class Meta:
        model = AnnotationSession
        fields = ["id", "url", "user", "description", "schema_version", "status", "status_display",
                  "final_annotation", "machine_annotation", "corrected", "producer", "is_valid", "created_at",
                  "finished_at", "iteration_count", "usage", "review_summary", "dataset_level", "confidence",
                  "low_confidence"]
        read_only_fields = fields

    @extend_schema_field(serializers.URLField())
    def get_url(self, obj: AnnotationSession) -> str:
        request = self.context.get("request")
        path = obj.get_absolute_url()
        return request.build_absolute_uri(path) if request is not None else path

    def get_user(self, obj: AnnotationSession) -> str | None:
        return obj.user.get_username() if obj.user_id and obj.user else None

    def get_corrected(self, obj: AnnotationSession) -> bool:
        return is_corrected(obj)

    @extend_schema_field(UsageSerializer)
    def get_usage(self, obj: AnnotationSession) -> dict[str, Any]:
        return usage_of(obj)

    @extend_schema_field(ReviewSummarySerializer)
    def get_review_summary(self, obj: AnnotationSession) -> dict[str, Any]:
        return summary_of(obj).as_dict()

    @extend_schema_field(DatasetLevelSerializer(allow_null=True))
    def get_dataset_level(self, obj: AnnotationSession) -> dict[str, Any] | None:
        return dataset_level_of(obj)


class SessionDetailSerializer(SessionSerializer):
    """A session with everything its page shows: iterations and issues, steps, reviews, revisions."""

    iterations = IterationSerializer(many=True, read_only=True)
    steps = StepSerializer(many=True, read_only=True)
    reviews = ReviewSerializer(many=True, read_only=True)
    revisions = RevisionSerializer(many=True, read_only=True)

    class Meta(SessionSerializer.Meta):
        fields = [*SessionSerializer.Meta.fields, "error", "interrupted", "options", "is_faithful",
                  "is_complete", "evaluation_feedback", "assessment_feedback", "started_at", "iterations",
                  "steps", "reviews", "revisions", "unknown_terms", "notes", "events_count", "examples_used"]
        read_only_fields = fields


class CreatedSessionSerializer(SessionDetailSerializer):
    """The answer to a create: the session as stored, in the detail's shape.

    Nothing has run, been reviewed or corrected yet, so the four lists are empty without asking the
    database (reading them back was over half of a create's cost); the run's progress is at its url.
    """

    iterations = serializers.SerializerMethodField()
    steps = serializers.SerializerMethodField()
    reviews = serializers.SerializerMethodField()
    revisions = serializers.SerializerMethodField()

    def get_iterations(self, obj: Any) -> list[Any]:
        return []

    get_steps = get_reviews = get_revisions = get_iterations
