"""Template filters of the search, design and compare pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def events_name(path: str) -> str:
    """``sub-01/eeg/sub-01_task-x_run-1_events.tsv`` -> ``sub-01_task-x_run-1``: an events file as a row names it."""
    name = str(path or "").rsplit("/", 1)[-1]
    return name.removesuffix(".tsv").removesuffix("_events")


@register.filter
def onset(value: object) -> str:
    """An onset in seconds as the events file would write it (``n/a`` for none): ``1.4``, ``24.20981818``."""
    if value is None:
        return "n/a"
    try:
        return f"{float(value):.10g}"
    except (TypeError, ValueError):
        return str(value)
