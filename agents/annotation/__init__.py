"""Annotation agent: writes a HED annotation for the state's description."""

from agents.annotation.agent import annotate

__all__ = ["annotate"]
