"""System checks of the app's settings: a bad value is reported by ``manage.py check`` and at start-up."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from agents.llm.providers import constraint_named
from bidsdata.limits import UploadLimits


@register()
def check_upload_limits(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Every ``HEDIT_UPLOAD_MAX_*`` variable names a known limit and holds a positive whole number."""
    try:
        UploadLimits.from_mapping(getattr(settings, "HEDIT_UPLOAD_LIMITS", {}))
    except ValueError as exc:
        return [Error(str(exc), hint="See the upload limits in the README's Datasets section.",
                      id="annotations.E001")]
    return []


@register()
def check_task_backend(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """``HEDIT_TASK_BACKEND`` names one of the task backends settings know."""
    known = getattr(settings, "HEDIT_TASK_BACKENDS", {})
    if settings.HEDIT_TASK_BACKEND in known:
        return []
    return [Error(f"HEDIT_TASK_BACKEND must be one of {', '.join(known)}, not {settings.HEDIT_TASK_BACKEND!r}",
                  hint="See the README's Configuration section.", id="annotations.E002")]


@register()
def check_llm_constraint(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """``HEDIT_LLM_CONSTRAINT`` names a decoding constraint the model client knows, or "auto"."""
    value = getattr(settings, "HEDIT_LLM", {}).get("CONSTRAINT")
    if constraint_named(value) is not None:
        return []
    return [Error(f"HEDIT_LLM_CONSTRAINT must be none, json_schema, llama_cpp or auto, not {value!r}",
                  id="annotations.E003")]


MIN_POOL_SIZE = 3
"""A worker's connections at once: its task's thread (a dataset job's runs and validation all use that one),
its sweeper, and a lease heartbeat, which borrows one for a moment and gives it back."""


@register()
def check_database_pool(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """``DATABASE_POOL_SIZE``, when set, leaves a worker the connections it takes at once."""
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    size = pool.get("max_size") if isinstance(pool, dict) else None
    if size is None or size >= MIN_POOL_SIZE:
        return []
    return [Error(f"DATABASE_POOL_SIZE must be at least {MIN_POOL_SIZE}, not {size}: a worker's task, its sweeper "
                  "and a lease heartbeat each take a connection at once",
                  hint="Unset it (no pool) or raise it; see the README's Configuration section.",
                  id="annotations.E004")]


EVALUATION_SETTINGS = ("HEDIT_EVALUATION_MAX_ITEMS", "HEDIT_EVALUATION_CONCURRENCY")


@register()
def check_evaluation_settings(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """The evaluation set size and an evaluation's concurrency are whole numbers of at least 1."""
    errors = []
    for name in EVALUATION_SETTINGS:
        value = str(getattr(settings, name, "1")).strip()
        if not value.isdigit() or int(value) < 1:
            errors.append(Error(f"{name} must be a whole number of at least 1, not {value!r}",
                                hint="See the README's Configuration section.", id="annotations.E005"))
    return errors


@register()
def check_numeric_settings(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Every variable the settings read as a number holds one (``DATABASE_POOL_SIZE=abc`` is reported here,
    its default standing meanwhile, rather than stopping the settings with a traceback)."""
    return [Error(message, hint="See the README's Configuration section.", id="annotations.E006")
            for message in getattr(settings, "HEDIT_SETTINGS_ERRORS", [])]
