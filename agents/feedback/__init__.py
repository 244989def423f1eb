"""Feedback agent: turns validation errors into one actionable message for the annotator."""

from agents.feedback.agent import summarise_feedback

__all__ = ["summarise_feedback"]
