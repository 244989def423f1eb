"""What the embedded server does once as it starts."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError

logger = logging.getLogger(__name__)


def on_server_start() -> None:
    """Fail runs that a previous stop cut off, when runs live inside this process."""
    if settings.HEDIT_TASK_BACKEND != "thread":
        # Separate workers own their runs; a web process starting says nothing about them.
        return
    from annotations.services import mark_interrupted_runs

    try:
        mark_interrupted_runs()
    except DatabaseError:
        logger.warning("could not check for interrupted runs (database not migrated yet?)", exc_info=True)
