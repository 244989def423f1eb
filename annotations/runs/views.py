"""The annotate form and a run's page: watch it live, cancel, re-run, see its stimulus."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotations.access import may_cancel
from annotations.errors import as_message, on_form
from annotations.llm.status import vision_model_for
from annotations.models import AnnotationSession
from annotations.runs import services
from annotations.runs.broadcasts import broadcast
from annotations.runs.forms import AnnotateForm
from annotations.runs.fragments import displayed_steps, session_flags, ws_path
from annotations.runs.images import image_type
from annotations.selectors import visible_sessions

logger = logging.getLogger(__name__)


@login_required
@require_http_methods(["GET", "POST"])
def annotate(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "annotations/runs/annotate.html",
                      {"form": AnnotateForm(vision_model=vision_model_for(request.user))})
    form = AnnotateForm(request.POST, request.FILES, vision_model=vision_model_for(request.user))
    status = 400
    if form.is_valid():
        with on_form(form) as outcome:  # beside its field (a quota at the top), with its status (400, 429)
            options = services.build_options(form.option_data())
            with transaction.atomic():
                session = services.create_session(
                    user=request.user, description=form.cleaned_data["description"], options=options,
                    image=form.cleaned_data.get("image"), max_image_bytes=settings.HEDIT_MAX_IMAGE_BYTES)
                services.start_session(session)
            logger.info("session %s queued by %s", session.pk, request.user)
            return redirect(session)
        status = outcome.status
    return render(request, "annotations/runs/annotate.html", {"form": form}, status=status)


def _visible(request: HttpRequest, pk: Any) -> AnnotationSession:
    return get_object_or_404(visible_sessions(request.user).select_related("user"), pk=pk)


@login_required
def session_detail(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _visible(request, pk)
    steps = list(displayed_steps(session))
    last_seq = steps[-1].seq if steps else 0
    context = {
        **session_flags(session, request.user),
        "steps": steps,
        "last_seq": last_seq,
        # A finished run will not change, so only a live one opens a socket.
        "ws_url": "" if session.is_finished else ws_path(session, last_seq),
    }
    return render(request, "annotations/runs/session_detail.html", context)


@login_required
def session_image(request: HttpRequest, pk: Any) -> FileResponse:
    """The stimulus image, to those who may see the session (media files are never public)."""
    session = _visible(request, pk)
    if not session.image:
        raise Http404("This run has no image.")
    content_type = image_type(session.image)  # reads and closes the file: before opening it to send
    return FileResponse(session.image.open("rb"), content_type=content_type)


@login_required
@require_POST
def session_cancel(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _visible(request, pk)
    if not may_cancel(request.user, session):
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
    if not services.may_rerun(session):
        messages.error(request, "This run is still going; cancel it first or wait for it to finish.")
        return redirect(session)
    # The quota, or an image and no vision model any more: a message on the run's page. Another user's project
    # (403) is a refusal, not a message on a page one may not act on: as_message lets it through.
    with as_message(request):
        new = services.rerun_session(session, user=request.user)
        messages.success(request, "Started a new run with the same description and options.")
        return redirect(new)
    return redirect(session)
