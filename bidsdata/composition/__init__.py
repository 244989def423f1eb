"""A task's levels composed into the sidecar a curator writes; the entry point is :func:`compose_task`."""

from bidsdata.composition.compose import Composition, compose_task, plain_composition

__all__ = ["Composition", "compose_task", "plain_composition"]
