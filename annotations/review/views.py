"""Review panel actions, the review queue and tag suggestions.

Panel actions answer htmx with the re-rendered panel (400 with the form's errors when the
input is bad) and plain form posts with a redirect back to the session.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from agents.schema import DEFAULT_SCHEMA_VERSION, UnknownSchemaVersion
from annotations.models import AnnotationSession
from annotations.review import services as reviews
from annotations.review.forms import BidsForm, CorrectionForm, ReviewForm
from annotations.review.panels import PANEL_TEMPLATE, panel_context
from annotations.selectors import visible_sessions

QUEUE_PAGE_SIZE = 50


def _panel(request: HttpRequest, session: AnnotationSession, *, status: int = 200,
           trigger: str = "", **forms: Any) -> HttpResponse:
    if not request.htmx:
        return redirect(session)
    response = render(request, PANEL_TEMPLATE, panel_context(request, session, **forms), status=status)
    if trigger:
        # Lets other parts of the session page refresh themselves after a change.
        response["HX-Trigger"] = trigger
    return response


def _session_for(request: HttpRequest, pk: Any) -> AnnotationSession:
    return get_object_or_404(visible_sessions(request.user).select_related("user"), pk=pk)


def _fail(form: Any, exc: reviews.ReviewError) -> None:
    form.add_error(exc.field if exc.field in form.fields else None, exc.message)


def _panel_post(request: HttpRequest, session: AnnotationSession, form: forms.Form, form_name: str,
                save: Callable[[dict[str, Any]], HttpResponse]) -> HttpResponse:
    """Run *save* on the form's data; bad input (the form's or the rules') re-renders the panel with 400."""
    if form.is_valid():
        try:
            return save(form.cleaned_data)
        except reviews.ReviewError as exc:
            _fail(form, exc)
    return _panel(request, session, status=400, **{form_name: form})


@login_required
@require_GET
def review_panel(request: HttpRequest, pk: Any) -> HttpResponse:
    """The panel alone, for refreshing it once a run shown live has finished."""
    session = _session_for(request, pk)
    return render(request, PANEL_TEMPLATE, panel_context(request, session))


@login_required
@require_POST
def review_submit(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _session_for(request, pk)
    if not reviews.can_review(request.user):
        return HttpResponseForbidden("Only reviewers can review annotations.")

    def save(data: dict[str, Any]) -> HttpResponse:
        reviews.submit_review(session, request.user, **data)
        return _panel(request, session, trigger="review-changed", review_message="Review saved.")

    return _panel_post(request, session, ReviewForm(request.POST), "review_form", save)


@login_required
@require_POST
def review_correct(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _session_for(request, pk)
    if not reviews.can_review(request.user):
        return HttpResponseForbidden("Only reviewers can correct annotations.")

    def save(data: dict[str, Any]) -> HttpResponse:
        revision = reviews.correct_annotation(session, request.user, data["hed"], comment=data["comment"])
        message = "Correction saved." if revision.is_valid else \
            "Correction saved, but it does not validate; see the issues below."
        return _panel(request, session, trigger="annotation-corrected", correction_message=message,
                      oob_annotation=True)

    return _panel_post(request, session, CorrectionForm(request.POST), "correction_form", save)


@login_required
@require_POST
def review_bids(request: HttpRequest, pk: Any) -> HttpResponse:
    session = _session_for(request, pk)
    if not reviews.can_assign_bids(request.user, session):
        return HttpResponseForbidden("Only the session's owner or a reviewer can assign a BIDS level.")

    def save(data: dict[str, Any]) -> HttpResponse:
        reviews.assign_bids(session, request.user, **data)
        return _panel(request, session, bids_message="BIDS assignment saved.")

    return _panel_post(request, session, BidsForm(request.POST), "bids_form", save)


@login_required
@require_GET
def review_tags(request: HttpRequest) -> HttpResponse:
    """Tags matching the word being typed (``q``, else the end of ``hed``), with descriptions."""
    version = request.GET.get("schema_version") or DEFAULT_SCHEMA_VERSION
    fragment = request.GET.get("q")
    if fragment is None:
        fragment = reviews.current_token(request.GET.get("hed", ""))
    context = ""
    session_id = request.GET.get("session", "")
    if _is_uuid(session_id):
        # With nothing typed yet, offer the tags most relevant to the event being annotated.
        context = visible_sessions(request.user).filter(pk=session_id).values_list(
            "description", flat=True).first() or ""
    try:
        suggestions = reviews.suggest_tags(version, fragment[:100], context=context)
    except UnknownSchemaVersion as exc:
        return render(request, "annotations/review/partials/tag_suggestions.html", {"error": str(exc)}, status=400)
    return render(request, "annotations/review/partials/tag_suggestions.html",
                  {"suggestions": suggestions, "fragment": fragment})


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@login_required
@require_GET
def review_queue(request: HttpRequest) -> HttpResponse:
    if not reviews.can_review(request.user):
        return HttpResponseForbidden("The review queue is for reviewers.")
    queue = reviews.review_queue(visible_sessions(request.user)).select_related("user")
    page = Paginator(queue, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "annotations/review/queue.html", {"page": page, "sessions": page.object_list})
