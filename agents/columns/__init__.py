"""Column agent: the HED of every level of a dataset column in one request, with the task's context."""

from agents.columns.agent import MAX_LEVELS_PER_REQUEST, MIN_LEVELS_PER_REQUEST, annotate_column
from agents.columns.context import ColumnContext, ColumnLevel, ColumnResult, LevelDraft, OtherColumn

__all__ = ["MAX_LEVELS_PER_REQUEST", "MIN_LEVELS_PER_REQUEST", "ColumnContext", "ColumnLevel", "ColumnResult",
           "LevelDraft", "OtherColumn", "annotate_column"]
