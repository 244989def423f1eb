"""Review panel actions, the review queue and tag suggestions.

Panel actions answer htmx with the re-rendered panel (400 with the form's errors when the
input is bad) and plain form posts with a redirect back to the session.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from agents.schema import DEFAULT_SCHEMA_VERSION, UnknownSchemaVersion
from annotations import access, corrections
from annotations.datasets.selectors import visible_projects
from annotations.datasets.services import add_session_to_level
from annotations.errors import caught, on_form, show_on_form
from annotations.models import AnnotationSession, DatasetLevel
from annotations.review import services as reviews
from annotations.review.forms import CorrectionForm, DatasetLevelForm, ReviewForm
from annotations.review.panels import PANEL_TEMPLATE, panel_context, queue_order_of
from annotations.review.queue import QUEUE_ORDERS, clean_order, queue_neighbours, queue_url
from annotations.review.queue import review_queue as review_queue_of
from annotations.selectors import visible_sessions

QUEUE_PAGE_SIZE = 50


def _panel(request: HttpRequest, session: AnnotationSession, *, status: int = 200,
           trigger: str = "", **forms: Any) -> HttpResponse:
    if not request.htmx:
        return redirect(session)
    response = render(request, PANEL_TEMPLATE, panel_context(request, session, **forms), status=status)
    if trigger:
        # Lets other parts of the session page refresh themselves after a change.
        trigger_client_event(response, trigger)
    return response


def _session_for(request: HttpRequest, pk: Any) -> AnnotationSession:
    return get_object_or_404(visible_sessions(request.user).select_related("user"), pk=pk)


def _panel_post(request: HttpRequest, session: AnnotationSession, form: forms.Form, form_name: str,
                save: Callable[[dict[str, Any]], HttpResponse]) -> HttpResponse:
    """Run *save* on the form's data; bad input (the form's or the rules') re-renders the panel with 400."""
    if form.is_valid():
        with on_form(form):
            return save(form.cleaned_data)
    return _panel(request, session, status=400, **{form_name: form})


@login_required
@require_GET
def review_panel(request: HttpRequest, pk: Any) -> HttpResponse:
    """The panel alone, for refreshing it once a run shown live has finished."""
    session = _session_for(request, pk)
    return render(request, PANEL_TEMPLATE, panel_context(request, session))


def _go(request: HttpRequest, url: str) -> HttpResponse:
    """Navigate to *url*: a full page load for htmx (HX-Redirect), a redirect for a plain post."""
    if request.htmx:
        return HttpResponseClientRedirect(url, status=204)
    return redirect(url)


@login_required
@require_POST
def review_submit(request: HttpRequest, pk: Any) -> HttpResponse:
    """Save a review; with ``next`` go on to the next run of the queue in the reviewer's order."""
    session = _session_for(request, pk)
    if not access.can_review(request.user):
        return HttpResponseForbidden("Only members of the reviewers group can review; ask an administrator.")
    order = queue_order_of(request)
    # Found before saving: the saved run may leave the queue, and the next is the one after it.
    following = queue_neighbours(visible_sessions(request.user), session, order)[1] if request.POST.get(
        "next") else None

    def save(data: dict[str, Any]) -> HttpResponse:
        reviews.submit_review(session, request.user, **data)
        if request.POST.get("next"):
            url = queue_url(following, order) or f"{reverse('annotations:review-queue')}?queue={order}&done=1"
            return _go(request, url)
        return _panel(request, session, trigger="review-changed", review_message="Review saved.")

    return _panel_post(request, session, ReviewForm(request.POST), "review_form", save)


@login_required
@require_POST
def review_correct(request: HttpRequest, pk: Any) -> HttpResponse:
    """Save a correction that validates, or any correction as a draft (``draft``); refuse the rest."""
    session = _session_for(request, pk)
    if not access.can_review(request.user):
        return HttpResponseForbidden("Only members of the reviewers group can correct annotations; "
                                     "ask an administrator.")
    draft = bool(request.POST.get("draft"))
    form = CorrectionForm(request.POST)

    def save(data: dict[str, Any]) -> HttpResponse:
        with caught(corrections.CorrectionRefused) as refused:
            revision = corrections.correct_annotation(session, request.user, data["hed"], comment=data["comment"],
                                                  draft=draft)
        if isinstance(refused.error, corrections.CorrectionRefused):
            # Shown beside the editor with the issues, so the reviewer can fix it or keep it as a draft.
            show_on_form(form, refused.error)
            if not request.htmx:
                messages.error(request, refused.error.message)
            return _panel(request, session, status=400, correction_form=form, refused_issues=refused.error.issues)
        if revision.is_draft:
            message = "Draft saved; it does not change the annotation until you save it as a correction." + (
                "" if revision.is_valid else " It does not validate yet.")
            return _panel(request, session, correction_message=message)
        return _panel(request, session, trigger="annotation-corrected", correction_message="Correction saved.",
                      oob_annotation=True)

    return _panel_post(request, session, form, "correction_form", save)


@login_required
@require_POST
def review_request(request: HttpRequest, pk: Any) -> HttpResponse:
    """The owner asks reviewers to look at their finished run."""
    session = _session_for(request, pk)
    reviews.request_review(session, request.user)  # refused (403, 409): the status page (RequestErrorMiddleware)
    return _panel(request, session, request_message="Review requested: it is now at the top of the queue.")


@login_required
@require_POST
def review_dataset_level(request: HttpRequest, pk: Any) -> HttpResponse:
    """Add this run to a dataset project as a level's annotation; a conflicting accepted level is refused."""
    session = _session_for(request, pk)
    if not access.can_place_in_dataset(request.user, session):
        return HttpResponseForbidden("Only the run's owner or a reviewer can add it to a dataset.")

    def save(data: dict[str, Any]) -> HttpResponse:
        level = get_object_or_404(DatasetLevel.objects.filter(
            column__task__project__in=visible_projects(request.user)), pk=data["level"])
        add_session_to_level(session, level)
        return _panel(request, session, dataset_message=f"Added to {level.column.task.project.name}.")

    form = DatasetLevelForm(request.POST, user=request.user)
    return _panel_post(request, session, form, "dataset_level_form", save)


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
    if not access.can_review(request.user):
        return HttpResponseForbidden("The review queue is for members of the reviewers group; "
                                     "ask an administrator.")
    order = clean_order(request.GET.get("queue"))
    queue = review_queue_of(visible_sessions(request.user), order).select_related("user")
    page = Paginator(queue, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "annotations/review/queue.html", {
        "page": page, "sessions": page.object_list, "order": order, "orders": QUEUE_ORDERS,
        "done": bool(request.GET.get("done"))})
