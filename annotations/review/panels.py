"""The review panel's context, shared by its views and the template tag that embeds it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from annotations import access
from annotations.models import AnnotationSession
from annotations.records import summary_of
from annotations.review import services as reviews
from annotations.review.forms import CorrectionForm, DatasetLevelForm, ReviewForm
from annotations.review.queue import QUEUE_ORDERS, clean_order, queue_neighbours, queue_url
from annotations.review_rules import is_corrected
from annotations.selectors import visible_sessions

PANEL_TEMPLATE = "annotations/review/partials/panel.html"
NOT_A_REVIEWER = "Only members of the reviewers group can review; ask an administrator."


def queue_order_of(request: HttpRequest) -> str:
    """The queue order the reviewer came with: ``queue`` in the query string or the posted form."""
    return clean_order(request.POST.get("queue") or request.GET.get("queue"))


def panel_context(request: HttpRequest, session: AnnotationSession, **forms: Any) -> dict[str, Any]:
    """Everything the review panel shows: summary, reviews, revisions and the forms the user may use."""
    user = request.user
    is_reviewer = access.can_review(user)
    reviewable = session.status in access.REVIEWABLE_STATUSES
    review_list = list(reviews.reviews_of(session))
    mine = next((r for r in review_list if r.reviewer_id == user.pk), None)
    order = queue_order_of(request)
    context: dict[str, Any] = {
        "session": session, "request": request, "summary": summary_of(session),
        "reviews": review_list, "revisions": list(reviews.revisions_of(session)), "my_review": mine,
        "can_review": is_reviewer and reviewable, "is_reviewer": is_reviewer, "reviewable": reviewable,
        "can_place_in_dataset": access.can_place_in_dataset(user, session) and session.is_valid is True,
        "corrected": is_corrected(session),
        "may_request_review": access.may_request_review(user, session),
        "not_a_reviewer": NOT_A_REVIEWER, "queue_order": order, "queue_order_label": QUEUE_ORDERS[order],
    }
    if is_reviewer:
        previous, following = queue_neighbours(visible_sessions(user), session, order)
        context["queue_previous_url"] = queue_url(previous, order)
        context["queue_next_url"] = queue_url(following, order)
        initial = {"rating": mine.rating, "verdict": mine.verdict, "comment": mine.comment} if mine else None
        context["review_form"] = forms.get("review_form") or ReviewForm(initial=initial)
        draft = reviews.draft_of(session, user)
        context["my_draft"] = draft
        context["correction_form"] = forms.get("correction_form") or CorrectionForm(initial={
            "hed": draft.after if draft else session.final_annotation, "comment": draft.comment if draft else ""})
    if context["can_place_in_dataset"] and session.dataset_level_id is None:
        context["dataset_level_form"] = forms.get("dataset_level_form") or DatasetLevelForm(user=user)
    context.update({k: v for k, v in forms.items()
                    if k.endswith("_message") or k in {"oob_annotation", "refused_issues"}})
    return context
