"""What the web server does once as it starts: warm the schema, resume the runs a stop cut off.

Wired from the ASGI application (hedit_site/asgi.py), so it happens once per server process and never in
management commands; the separate worker warms the schema itself (annotations.runs.worker).
"""

from __future__ import annotations

import importlib
import logging
import threading

from django.conf import settings
from django.db import DatabaseError

from annotations.hooks import SERVER_STARTED

logger = logging.getLogger(__name__)

# hedtools' modules the app uses, and ours that import them. Python's import lock is per module: a request
# thread importing hed.errors while the warm-up thread is half-way through it saw a partially initialised
# module (ImportError on the first requests after a start), so all are imported in the main thread first.
HEDTOOLS_MODULES = (
    "hed", "hed.errors", "hed.errors.error_reporter", "hed.errors.exceptions", "hed.models", "hed.models.df_util",
    "hed.models.model_constants", "hed.schema", "hed.validator", "hed.validator.spreadsheet_validator",
    "hed.validator.onset_validator", "hed.tools.analysis.annotation_util", "hed.tools.analysis.event_manager",
    "hed.tools.analysis.event_checker", "hed.tools.analysis.hed_type_manager",
    "agents.validation", "agents.vocabulary", "bidsdata.sidecar", "bidsdata.validation",
)


def import_hedtools() -> None:
    """Import :data:`HEDTOOLS_MODULES` in this (the main) thread, before any other thread may."""
    for name in HEDTOOLS_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # a module gone from a newer hedtools: the rest are still imported in time
            logger.warning("could not import %s at start", name, exc_info=True)


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

    Once per process: a second call (the ASGI module loaded again) does nothing (:func:`has_started`).
    """
    global _started
    with _start_lock:
        if _started:
            return
        _started = True
    import_hedtools()  # before the warm-up thread and before the first request thread
    threading.Thread(target=warm_up_schema, args=(settings.HEDIT_DEFAULT_SCHEMA,), name="hedit-warm-up",
                     daemon=True).start()
    if settings.HEDIT_TASK_BACKEND != "thread":
        # Separate workers own their runs; a web process starting says nothing about them.
        return
    from annotations.runs.recovery import resume_cut_off_runs

    try:
        resume_cut_off_runs()
        # Then what the concerns above runs resume (dataset validations, evaluation chains), registered on
        # the hook in AnnotationsConfig.ready.
        for resume in SERVER_STARTED.targets():
            resume()
    except DatabaseError:
        logger.warning("could not check for interrupted runs (database not migrated yet?)", exc_info=True)


def has_started() -> bool:
    """Whether this process ran the server's start (a management command never does: only the ASGI app)."""
    with _start_lock:
        return _started


def forget_start() -> None:
    """Let :func:`on_server_start` run once more in this process: for tests, which start it more than once in
    one process and check what each start does."""
    global _started
    with _start_lock:
        _started = False
