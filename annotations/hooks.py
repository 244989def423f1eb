"""Where a lower concern hands over to a higher one, without importing it.

Dependencies inside ``annotations`` point one way (tests/core/test_import_contract.py keeps them so): runs sit
below datasets and evaluation, datasets below usage, llm below evaluation. Yet a run that ends may end its
dataset job or start its evaluation's next runs, a stored sidecar revision has its acceptance rules checked,
and a changed model re-runs the watched evaluation sets. Each such moment is a :class:`Hook` here; the lower
concern calls it, the higher one is registered on it in ``AnnotationsConfig.ready`` by its dotted path.

Paths, not functions: registering imports nothing (``ready`` stays light, hedtools stays unloaded until the
server's start asks for it), and each call looks its target up, so a test that replaces the function on its
module replaces what the hook calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.utils.module_loading import import_string


class Hook:
    """A moment a lower concern announces; the targets run in the order they were registered."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._paths: list[str] = []

    def register(self, path: str) -> None:
        """Call the function at dotted *path* at this moment; registering it twice (``ready`` run again by a
        test) adds nothing."""
        if path not in self._paths:
            self._paths.append(path)

    def targets(self) -> Iterator[Callable[..., Any]]:
        """The registered functions, as their modules hold them now."""
        for path in list(self._paths):
            yield import_string(path)

    def __repr__(self) -> str:
        return f"Hook({self.name!r}, {self._paths!r})"


RUN_ENDED = Hook("run ended")
"""A run's task ran it to its end (``annotations.runs.tasks``): ``await target(session)``; a run the task
skipped (claimed elsewhere, gone) calls nothing."""

SERVER_STARTED = Hook("server started")
"""The server started with runs in its own process (``annotations.runs.startup``), after the runs it cut off were
queued again: ``target()``."""

REVISION_STORED = Hook("sidecar revision stored")
"""A task's validated sidecar was stored under a new digest (``annotations.datasets.results``):
``target(task, digest)``."""

MODEL_CHANGED = Hook("model settings changed")
"""A user saved or removed their LLM settings on the settings page (``annotations.llm.views``):
``target(request)``, which may add messages to the request."""


__all__ = ["MODEL_CHANGED", "REVISION_STORED", "RUN_ENDED", "SERVER_STARTED", "Hook"]
