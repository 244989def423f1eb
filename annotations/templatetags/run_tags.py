"""Template tags of a run's page: what the evaluation was unsure of, and the memory the run drew on."""

from __future__ import annotations

from typing import Any

from django import template

from annotations.runs.memory import examples_for_page, reused_example

register = template.Library()


def _viewer(context: Any) -> Any:
    request = context.get("request")
    return request.user if request is not None else context.get("viewer")


@register.inclusion_tag("annotations/runs/partials/memory.html", takes_context=True)
def run_memory(context: Any, session: Any) -> dict[str, Any]:
    """``{% run_memory session %}``: the reviewed runs this one used, linked only where the viewer may see them."""
    return {"session": session, "examples": examples_for_page(session, _viewer(context))}


@register.inclusion_tag("annotations/datasets/partials/question_memory.html", takes_context=True)
def level_memory(context: Any, session_id: Any, project: Any) -> dict[str, Any]:
    """``{% level_memory state.session_id project %}``: the reviewed annotation a level's run started from, linked,
    with how to turn the reuse off for the project."""
    return {"reused": reused_example(session_id, _viewer(context)), "project": project,
            "can_edit": context.get("can_edit", False), "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("annotations/runs/partials/confidence.html")
def run_confidence(session: Any) -> dict[str, Any]:
    """``{% run_confidence session %}``: a low-confidence badge and the words no HED tag is known for."""
    return {"session": session}


@register.filter
def as_percent(value: float | None) -> str:
    """0.42 -> "42%"; None -> ""."""
    return "" if value is None else f"{round(100 * float(value))}%"
