from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotations import models


class IterationInline(admin.TabularInline):
    model = models.Iteration
    extra = 0
    fields = ("number", "annotation", "is_valid", "is_faithful", "feedback")
    readonly_fields = fields
    show_change_link = True


class StepInline(admin.TabularInline):
    model = models.AgentStepRecord
    extra = 0
    fields = ("seq", "agent", "iteration", "action", "ok", "duration_ms")
    readonly_fields = fields


class ReviewInline(admin.TabularInline):
    model = models.Review
    extra = 0


@admin.register(models.AnnotationSession)
class AnnotationSessionAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "short_description", "status", "is_valid", "schema_version",
                    "iteration_count", "llm_call_count", "cost_usd", "mean_rating")
    list_filter = ("status", "is_valid", "schema_version", "interrupted")
    search_fields = ("description", "final_annotation")
    date_hierarchy = "created_at"
    list_select_related = ("user",)
    raw_id_fields = ("user", "dataset_level", "evaluation_batch", "evaluation_item")
    readonly_fields = ("id", "created_at", "started_at", "finished_at")
    inlines = [IterationInline, StepInline, ReviewInline]

    @admin.display(description="description")
    def short_description(self, obj: models.AnnotationSession) -> str:
        return obj.description[:80]


class IssueInline(admin.TabularInline):
    model = models.ValidationIssueRecord
    extra = 0


@admin.register(models.Iteration)
class IterationAdmin(admin.ModelAdmin):
    list_display = ("session", "number", "is_valid", "is_faithful", "created_at")
    inlines = [IssueInline]
    raw_id_fields = ("session",)


@admin.register(models.ValidationIssueRecord)
class ValidationIssueAdmin(admin.ModelAdmin):
    list_display = ("code", "severity", "tag", "iteration")
    list_filter = ("code", "severity")
    raw_id_fields = ("iteration",)


@admin.register(models.AgentStepRecord)
class AgentStepAdmin(admin.ModelAdmin):
    list_display = ("session", "seq", "agent", "action", "ok", "duration_ms", "created_at")
    list_filter = ("agent", "ok")
    raw_id_fields = ("session",)


@admin.register(models.FeedbackMessage)
class FeedbackMessageAdmin(admin.ModelAdmin):
    list_display = ("session", "iteration", "source", "created_at")
    list_filter = ("source",)
    raw_id_fields = ("session",)


@admin.register(models.LLMCallRecord)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = ("created_at", "agent", "model", "prompt_tokens", "completion_tokens", "cost_usd",
                    "latency_ms", "cache_hit", "error")
    list_filter = ("agent", "model", "cache_hit")
    raw_id_fields = ("session",)


@admin.register(models.LLMResponseCache)
class LLMResponseCacheAdmin(admin.ModelAdmin):
    list_display = ("key", "model", "created_at", "expires_at")


@admin.register(models.UserLLMSettings)
class UserLLMSettingsAdmin(admin.ModelAdmin):
    list_display = ("user", "provider", "base_url", "model", "updated_at")
    exclude = ("encrypted_api_key",)


@admin.register(models.Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ("session", "reviewer", "rating", "verdict", "created_at")
    list_filter = ("verdict", "rating")
    raw_id_fields = ("session",)


@admin.register(models.Revision)
class RevisionAdmin(admin.ModelAdmin):
    list_display = ("session", "author", "is_valid", "created_at")
    raw_id_fields = ("session",)


# --- datasets: every foreign key by id (a project may hold thousands of levels), no inlines -------------


class DatasetAdmin(admin.ModelAdmin):
    """Fields that can be large (file texts, sidecars) are not read for the lists."""

    list_defer: tuple[str, ...] = ()

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).defer(*self.list_defer)


@admin.register(models.DatasetProject)
class DatasetProjectAdmin(DatasetAdmin):
    list_display = ("name", "user", "status", "schema_version", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "user__username")
    date_hierarchy = "created_at"
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    readonly_fields = ("id", "created_at", "updated_at")


@admin.register(models.DatasetFile)
class DatasetFileAdmin(DatasetAdmin):
    list_display = ("path", "project")
    search_fields = ("path", "project__name")
    list_select_related = ("project",)
    raw_id_fields = ("project",)
    # The text is stored compressed and may be megabytes: never loaded or shown here.
    fields = ("project", "path")
    readonly_fields = fields
    list_defer = ("text",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # files come from uploads only


@admin.register(models.DatasetTask)
class DatasetTaskAdmin(DatasetAdmin):
    list_display = ("name", "project", "sidecar_name")
    search_fields = ("name", "project__name")
    list_select_related = ("project",)
    raw_id_fields = ("project",)
    list_defer = ("events_files", "original_sidecar", "definition_keys")


@admin.register(models.DatasetColumn)
class DatasetColumnAdmin(DatasetAdmin):
    list_display = ("name", "task", "position", "kind", "distinct_values", "needs_description")
    list_filter = ("kind", "needs_description")
    search_fields = ("name", "task__name", "task__project__name")
    list_select_related = ("task",)
    raw_id_fields = ("task",)
    list_defer = ("sample_values", "existing_template", "template", "template_issues")


@admin.register(models.DatasetLevel)
class DatasetLevelAdmin(DatasetAdmin):
    list_display = ("value", "column", "count", "needs_description", "existing_is_valid")
    list_filter = ("needs_description", "existing_is_valid")
    search_fields = ("value", "column__name", "column__task__project__name")
    list_select_related = ("column",)
    raw_id_fields = ("column",)


@admin.register(models.EvaluationSet)
class EvaluationSetAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "project", "source", "watch", "created_at")
    list_filter = ("source", "watch")
    search_fields = ("name",)
    raw_id_fields = ("owner", "project")


@admin.register(models.EvaluationBatch)
class EvaluationBatchAdmin(admin.ModelAdmin):
    list_display = ("set", "user", "model_choice", "model", "prompt_version", "schema_version", "total", "created_at",
                    "finished_at", "cancelled_at")
    list_filter = ("model", "prompt_version")
    raw_id_fields = ("set", "user")
