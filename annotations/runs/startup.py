"""What the web server does once as it starts: warm the schema, resume the runs a stop cut off.

Wired from the ASGI application (hedit_site/asgi.py), so it happens once per server process and never in
management commands; the separate worker warms the schema itself (annotations.runs.worker).
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import DatabaseError

logger = logging.getLogger(__name__)


def warm_up_schema(version: str) -> None:
    # Importing hedtools and loading a schema takes seconds; pay it before the first user's run does.
    try:
        from agents.validation import validate_hed
        from agents.vocabulary import get_vocabulary

        get_vocabulary(version)
        validate_hed("Event", version)
    except Exception:
        logger.warning("schema warm-up failed", exc_info=True)


_started = False
_start_lock = threading.Lock()


def on_server_start() -> None:
    """Warm the default schema; queue again the runs a previous stop cut off when runs live in this process.

    Once per process: a second call (the ASGI module loaded again) does nothing.
    """
    global _started
    with _start_lock:
        if _started:
            return
        _started = True
    threading.Thread(target=warm_up_schema, args=(settings.HEDIT_DEFAULT_SCHEMA,), name="hedit-warm-up",
                     daemon=True).start()
    if settings.HEDIT_TASK_BACKEND != "thread":
        # Separate workers own their runs; a web process starting says nothing about them.
        return
    from annotations.runs.recovery import resume_cut_off_runs

    try:
        resume_cut_off_runs()
    except DatabaseError:
        logger.warning("could not check for interrupted runs (database not migrated yet?)", exc_info=True)
