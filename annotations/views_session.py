"""One session's page: the run as it happens, cancel and re-run; fragments for the live socket."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from annotations import services
from annotations.models import AgentStepRecord, AnnotationSession
from annotations.recorder import broadcast
from annotations.selectors import visible_sessions

logger = logging.getLogger(__name__)


def may_cancel(session: AnnotationSession, user: Any) -> bool:
    # Reviewers may watch anyone's run but only its owner (or staff) may stop it.
    return not session.is_finished and (session.user_id == user.pk or user.is_staff)


def session_flags(session: AnnotationSession, user: Any) -> dict[str, Any]:
    return {"session": session, "can_cancel": may_cancel(session, user), "can_rerun": session.is_finished}


def ws_path(session: AnnotationSession, after: int) -> str:
    return f"/ws/sessions/{session.pk}/?after={after}"


def step_fragment(step: AgentStepRecord, schema_version: str) -> str:
    """One step as an out-of-band append to ``#progress``."""
    return render_to_string("annotations/partials/step_oob.html",
                            {"step": step, "schema_version": schema_version})


def usage_fragment(session: AnnotationSession) -> str:
    return render_to_string("annotations/partials/usage.html", {"session": session, "oob": True})


def status_fragment(session: AnnotationSession, user: Any, csrf_token: str = "") -> str:
    """Status, controls, usage and final annotation, each replacing its element by id.

    Rendered outside a request, so the cancel and re-run forms take the CSRF token from the
    socket's cookie (Django accepts the unmasked secret as a form token).
    """
    context = {**session_flags(session, user), "oob": True, "csrf_token": csrf_token}
    return render_to_string("annotations/partials/session_live_oob.html", context)


def _visible(request: HttpRequest, pk: Any) -> AnnotationSession:
    return get_object_or_404(visible_sessions(request.user).select_related("user"), pk=pk)


@login_required
def session_detail(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _visible(request, pk)
    steps = list(session.steps.order_by("seq"))
    last_seq = steps[-1].seq if steps else 0
    context = {
        **session_flags(session, request.user),
        "steps": steps,
        "last_seq": last_seq,
        # A finished run will not change, so only a live one opens a socket.
        "ws_url": "" if session.is_finished else ws_path(session, last_seq),
    }
    return render(request, "annotations/session_detail.html", context)


@login_required
def session_image(request: HttpRequest, pk: Any) -> FileResponse:
    """The stimulus image, to those who may see the session (media files are never public)."""
    session = _visible(request, pk)
    if not session.image:
        raise Http404("this run has no image")
    content_type = services.image_type(session.image)  # reads and closes the file: before opening it to send
    return FileResponse(session.image.open("rb"), content_type=content_type)


@login_required
@require_POST
def session_cancel(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _visible(request, pk)
    if not may_cancel(session, request.user):
        if session.is_finished:
            messages.info(request, "This run has already finished.")
            return redirect(session)
        return HttpResponseForbidden("Only the owner of this run can cancel it.")
    services.request_cancel(session)
    # A queued run is cancelled here and now; tell any other open page of it.
    async_to_sync(broadcast)(session.pk, "status")
    messages.info(request, "Cancelling: the run stops after the current step.")
    logger.info("session %s cancel requested by %s", session.pk, request.user)
    return redirect(session)


@login_required
@require_POST
def session_rerun(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _visible(request, pk)
    if not session.is_finished:
        messages.error(request, "This run is still going; cancel it first or wait for it to finish.")
        return redirect(session)
    new = services.rerun_session(session, user=request.user)
    messages.success(request, "Started a new run with the same description and options.")
    return redirect(new)
