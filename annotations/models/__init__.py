"""The app's models, one module per concern; imported here so Django finds them all."""

from annotations.models.datasets import (
    ColumnKind,
    DatasetColumn,
    DatasetFile,
    DatasetLevel,
    DatasetProject,
    DatasetTask,
    JobStatus,
    SidecarResult,
)
from annotations.models.evaluation import EvaluationBatch, EvaluationItem, EvaluationSet, SetSource
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
from annotations.models.usage import AcceptanceCheck, AcceptanceRule, Expectation, SavedQuery

__all__ = [
    "FINISHED_STATUSES",
    "AcceptanceCheck",
    "AcceptanceRule",
    "AgentStepRecord",
    "AnnotationSession",
    "ColumnKind",
    "DatasetColumn",
    "DatasetFile",
    "DatasetLevel",
    "DatasetProject",
    "DatasetTask",
    "EvaluationBatch",
    "EvaluationItem",
    "EvaluationSet",
    "Expectation",
    "FeedbackMessage",
    "Iteration",
    "JobStatus",
    "LLMCallRecord",
    "LLMResponseCache",
    "Review",
    "Revision",
    "SavedQuery",
    "SessionStatus",
    "SetSource",
    "SidecarResult",
    "UserLLMSettings",
    "ValidationIssueRecord",
    "Verdict",
]
