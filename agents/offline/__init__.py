"""Offline annotation: plain English to valid HED with the schema and a lexicon, no LLM needed."""

from agents.offline.annotator import OfflineResult, annotate_offline
from agents.offline.coverage import uncovered_terms

__all__ = ["OfflineResult", "annotate_offline", "uncovered_terms"]
