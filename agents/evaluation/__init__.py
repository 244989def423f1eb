"""Evaluation agent: is a valid annotation faithful to its description?"""

from agents.evaluation.agent import evaluate

__all__ = ["evaluate"]
