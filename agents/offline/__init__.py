"""Offline annotation: plain English to valid HED with the schema and a lexicon, no LLM needed."""

from agents.offline.annotator import OfflineResult, annotate_offline, find_events
from agents.offline.coverage import Coverage, assess_coverage, uncovered_terms

__all__ = ["Coverage", "OfflineResult", "annotate_offline", "assess_coverage", "find_events", "uncovered_terms"]
