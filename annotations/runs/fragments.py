"""HTML fragments of a run's page, rendered for the page itself and pushed over the websocket."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.template.loader import render_to_string

from annotations.access import can_rerun, may_cancel
from annotations.models import AgentStepRecord, AnnotationSession
from annotations.runs.lease import is_lost


def session_flags(session: AnnotationSession, user: Any) -> dict[str, Any]:
    # A run whose worker died may be re-run at once: it would otherwise wait for the sweeper.
    return {"session": session, "can_cancel": may_cancel(user, session),
            "can_rerun": (session.is_finished or is_lost(session)) and can_rerun(user, session)}


def ws_path(session: AnnotationSession, after: int) -> str:
    return f"/ws/sessions/{session.pk}/?after={after}"


def displayed_steps(session: AnnotationSession, after: int = 0) -> QuerySet[AgentStepRecord]:
    """The run's steps after *after*, in order, each knowing whether it opens a later start of the run.

    A run whose worker (or the embedded server) stopped starts again and keeps what the cut-off start
    stored; the page says where the new start begins rather than showing the same agents again without
    a word. Asked in the query, so a socket that replays from the middle marks it just the same.
    """
    earlier_in_start = AgentStepRecord.objects.filter(session_id=OuterRef("session_id"), attempt=OuterRef("attempt"),
                                                      seq__lt=OuterRef("seq"))
    return session.steps.filter(seq__gt=after).order_by("seq").annotate(opens_start=~Exists(earlier_in_start))


def step_fragment(step: AgentStepRecord, schema_version: str) -> str:
    """One step as an out-of-band append to ``#progress``."""
    return render_to_string("annotations/runs/partials/step_oob.html",
                            {"step": step, "schema_version": schema_version})


def usage_fragment(session: AnnotationSession) -> str:
    return render_to_string("annotations/runs/partials/usage.html", {"session": session, "oob": True})


def status_fragment(session: AnnotationSession, user: Any, csrf_token: str = "") -> str:
    """Status, controls, usage and final annotation, each replacing its element by id.

    Rendered outside a request, so the cancel and re-run forms take the CSRF token from the
    socket's cookie (Django accepts the unmasked secret as a form token).
    """
    context = {**session_flags(session, user), "oob": True, "csrf_token": csrf_token, "viewer": user}
    return render_to_string("annotations/runs/partials/session_live_oob.html", context)
