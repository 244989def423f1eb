"""What the three commands share: DATASET opened, queries checked, the search done here, one line on failure.

``hed_search``, ``design_matrix`` and ``hed_summary`` run their work in the command's own process (a command
is one question; the search processes of a server keep revisions for many). A malformed query, a DATASET
that cannot be read, an unknown task or type is a :class:`~django.core.management.base.CommandError` of one
line; anything else that goes wrong too, logged with its traceback, never printed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from django.core.management.base import CommandError, CommandParser

from annotations.usage.datasets import Dataset, DatasetUnusable, open_dataset
from bidsdata.usage import QueryError
from bidsdata.usage.design import DesignError
from bidsdata.usage.workers import configure_search

logger = logging.getLogger(__name__)


def add_dataset_argument(parser: CommandParser) -> None:
    parser.add_argument("dataset", metavar="DATASET",
                        help="a BIDS folder, a zip of one, or a dataset project's id (its current sidecars)")


def quiet(verbosity: int) -> None:
    """hedtools' and the readers' notes only from -v 2 on: the command prints its answer, not their log."""
    if verbosity < 2:
        for name in ("bidsdata", "annotations", "agents", "hed"):
            logging.getLogger(name).setLevel(logging.ERROR)


def opened(dataset: str, task: str | None) -> Dataset:
    configure_search(-1)  # the work in this process
    try:
        return open_dataset(dataset, task)
    except DatasetUnusable as exc:
        raise CommandError(str(exc)) from None


@contextlib.contextmanager
def one_line(what: str) -> Iterator[None]:
    """A failure inside is one line (exit 1); the traceback goes to the log only."""
    try:
        yield
    except (CommandError, SystemExit, KeyboardInterrupt):
        raise
    except QueryError as exc:
        raise CommandError(str(exc)) from None
    except (DesignError, DatasetUnusable) as exc:
        raise CommandError(str(exc)) from None
    except Exception as exc:
        logger.exception("%s failed", what)
        raise CommandError(f"{what} failed: {type(exc).__name__}: {exc}".splitlines()[0][:300]) from None


def number(value: Any) -> str:
    """An onset or count as a table cell: ``n/a`` for none, numbers without needless digits."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


__all__ = ["add_dataset_argument", "number", "one_line", "opened", "quiet"]
