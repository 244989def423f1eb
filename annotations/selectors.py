"""Read-side queries of stored sessions (the plain-data record of one is annotations.records)."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from annotations.access import can_see_all
from annotations.models import AnnotationSession, Iteration


def visible_sessions(user: Any) -> QuerySet[AnnotationSession]:
    """Sessions *user* may see (the rule of ``access.may_see``, as a query): their own; reviewers and staff see
    everyone's."""
    qs = AnnotationSession.objects.all()
    if user is None or not user.is_authenticated:
        return qs.none()
    if can_see_all(user):
        return qs
    return qs.filter(user=user)


def with_record_relations(qs: QuerySet[AnnotationSession], *, llm_calls: bool = True) -> QuerySet[AnnotationSession]:
    """Everything a session's full record (:mod:`annotations.records`) shows; *llm_calls* off where they are
    not shown (their prompts are the largest rows a session has)."""
    return qs.select_related("user", "dataset_level__column__task").prefetch_related(
        Prefetch("iterations", queryset=Iteration.objects.prefetch_related("issues")),
        "steps", *(["llm_calls"] if llm_calls else []), "reviews__reviewer", "revisions__author")
