"""The app's models, one module per concern; imported here so Django finds them all."""

from annotations.models.llm import LLMResponseCache, UserLLMSettings
from annotations.models.review import Review, Revision, Verdict
from annotations.models.runs import (
    FINISHED_STATUSES,
    AgentStepRecord,
    AnnotationSession,
    FeedbackMessage,
    Iteration,
    LLMCallRecord,
    SessionStatus,
    ValidationIssueRecord,
)

__all__ = [
    "FINISHED_STATUSES",
    "AgentStepRecord",
    "AnnotationSession",
    "FeedbackMessage",
    "Iteration",
    "LLMCallRecord",
    "LLMResponseCache",
    "Review",
    "Revision",
    "SessionStatus",
    "UserLLMSettings",
    "ValidationIssueRecord",
    "Verdict",
]
