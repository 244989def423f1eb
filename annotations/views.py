"""The annotate page; the other page areas live in views_session, views_history and views_validate."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotations import services
from annotations.forms import AnnotateForm
from annotations.views_history import history
from annotations.views_session import session_cancel, session_detail, session_image, session_rerun
from annotations.views_validate import validate, validate_check

logger = logging.getLogger(__name__)

__all__ = ["annotate", "history", "session_cancel", "session_detail", "session_image", "session_rerun", "validate",
           "validate_check"]

_FIELD_OF_MESSAGE = ("description", "image", "schema_version", "max validation attempts")


def _error_field(message: str) -> str | None:
    """The form field a service error message is about, so it shows beside that field."""
    lowered = message.lower()
    for name in _FIELD_OF_MESSAGE:
        if lowered.startswith(name) or (name == "schema_version" and "schema version" in lowered):
            return "max_validation_attempts" if name.startswith("max") else name
    return None


@login_required
@require_http_methods(["GET", "POST"])
def annotate(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "annotations/annotate.html", {"form": AnnotateForm()})
    form = AnnotateForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            options = services.build_options(form.option_data())
            with transaction.atomic():
                session = services.create_session(
                    user=request.user, description=form.cleaned_data["description"], options=options,
                    image=form.cleaned_data.get("image"), max_image_bytes=settings.HEDIT_MAX_IMAGE_BYTES)
                services.start_session(session)
        except services.RequestError as exc:
            form.add_error(_error_field(str(exc)), str(exc))
        else:
            logger.info("session %s queued by %s", session.pk, request.user)
            return redirect(session)
    return render(request, "annotations/annotate.html", {"form": form}, status=400)
