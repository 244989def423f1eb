"""Validation agent: checks an annotation with hedtools and explains every error."""

from agents.validation.agent import validate_annotation, validate_hed
from agents.validation.hints import hint_for

__all__ = ["hint_for", "validate_annotation", "validate_hed"]
