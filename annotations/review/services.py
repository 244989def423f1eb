"""Business logic of reviewing: ratings and verdicts, review requests, tag suggestions.

A correction of the annotation lives below the concerns, in :mod:`annotations.corrections`.

Every change to a session's reviews recomputes its stored summary (count, mean rating,
verdict counts) in the same transaction, so history filters and exports never aggregate
per row and never see a summary that disagrees with the reviews.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.db import transaction
from django.db.models import Avg, Count, Q, QuerySet
from django.utils import timezone

from annotations.access import can_review, owns
from annotations.corrections import (  # the correction's core, shared with a dataset level's page
    ReviewError,
    check_reviewable,
    clean_comment,
    lock_session,
)
from annotations.models import AnnotationSession, Review, Revision, Verdict
from annotations.records import ReviewSummary, summary_of
from annotations.review_rules import is_corrected

logger = logging.getLogger(__name__)



# --- reviews --------------------------------------------------------------------------------


def clean_rating(value: Any) -> int:
    try:
        rating = int(value)
    except (TypeError, ValueError):
        raise ReviewError("rating", "rating must be a whole number from 1 to 5") from None
    if isinstance(value, float) and value != rating:
        raise ReviewError("rating", "rating must be a whole number from 1 to 5")
    if not 1 <= rating <= 5:
        raise ReviewError("rating", f"rating must be from 1 to 5, not {rating}")
    return rating


def clean_verdict(value: Any) -> str:
    if value not in Verdict.values:
        raise ReviewError("verdict", f"verdict must be one of {', '.join(Verdict.values)}")
    return str(value)


def submit_review(session: AnnotationSession, reviewer: Any, *, rating: Any, verdict: Any,
                  comment: Any = "") -> tuple[Review, bool]:
    """Add *reviewer*'s review of *session*, or replace their earlier one; True when it is new.

    Raises :class:`PermissionError` for a non-reviewer and :class:`ReviewError` for bad input.
    """
    if not can_review(reviewer):
        raise PermissionError("only reviewers can review annotations")
    rating, verdict, comment = clean_rating(rating), clean_verdict(verdict), clean_comment(comment)
    check_reviewable(session)
    with transaction.atomic():
        # Locking the session row serialises concurrent reviews of one session, so each
        # recomputation sees every review committed before it.
        lock_session(session)
        review, created = Review.objects.update_or_create(
            session=session, reviewer=reviewer,
            defaults={"rating": rating, "verdict": verdict, "comment": comment})
        recompute_summary(session)
        # The owner's request for a review is answered.
        AnnotationSession.objects.filter(pk=session.pk).update(review_requested_at=None)
        session.review_requested_at = None
    logger.info("%s reviewed session %s: %s/5 %s", reviewer, session.pk, rating, verdict)
    return review, created


def request_review(session: AnnotationSession, user: Any) -> AnnotationSession:
    """Flag *session* for review: the queue lists requested runs first until a review is saved."""
    if not owns(user, session):
        raise PermissionError("only the run's owner can ask for a review")
    check_reviewable(session)
    if session.review_requested_at is None:
        session.review_requested_at = timezone.now()
        AnnotationSession.objects.filter(pk=session.pk).update(review_requested_at=session.review_requested_at)
        logger.info("%s asked for a review of session %s", user, session.pk)
    return session


def recompute_summary(session: AnnotationSession) -> ReviewSummary:
    """Store the review summary of *session* from its reviews, on the row and on *session*."""
    agg = Review.objects.filter(session_id=session.pk).aggregate(
        count=Count("id"), mean=Avg("rating"),
        accept=Count("id", filter=Q(verdict=Verdict.ACCEPT)),
        needs_fix=Count("id", filter=Q(verdict=Verdict.NEEDS_FIX)),
        reject=Count("id", filter=Q(verdict=Verdict.REJECT)))
    fields = {"review_count": agg["count"], "mean_rating": agg["mean"], "accept_count": agg["accept"],
              "needs_fix_count": agg["needs_fix"], "reject_count": agg["reject"]}
    AnnotationSession.objects.filter(pk=session.pk).update(**fields)
    for name, value in fields.items():
        setattr(session, name, value)
    return summary_of(session)


def reviews_of(session: AnnotationSession) -> QuerySet[Review]:
    return session.reviews.select_related("reviewer").order_by("created_at", "id")


def revisions_of(session: AnnotationSession) -> QuerySet[Revision]:
    return session.revisions.select_related("author").order_by("created_at", "id")


# --- corrections ----------------------------------------------------------------------------


def draft_of(session: AnnotationSession, author: Any) -> Revision | None:
    """*author*'s unsaved draft correction of *session*, if any."""
    if author is None or not getattr(author, "is_authenticated", False):
        return None
    return Revision.objects.filter(session=session, author=author, is_draft=True).first()


def corrected_by(session: AnnotationSession) -> Any:
    """The author of the correction that is the final annotation, or None for the machine's."""
    if not is_corrected(session):
        return None
    revision = (session.revisions.filter(is_draft=False, after=session.final_annotation)
                .select_related("author").order_by("-created_at", "-id").first())
    return revision.author if revision is not None else None


# --- tag suggestions for the correction editor ----------------------------------------------

_TOKEN_SPLIT = re.compile(r"[,()]")


def current_token(hed: str) -> str:
    """The tag being typed at the end of *hed*: the text after the last comma or parenthesis."""
    return _TOKEN_SPLIT.split(hed or "")[-1].strip()


def suggest_tags(schema_version: str, fragment: str, *, context: str = "",
                 limit: int = 12) -> list[tuple[str, str, bool]]:
    """(name, description, takes_value) of tags matching *fragment*, best first.

    Prefix matches rank above substring matches, then the schema's closest names (typos).
    Without a fragment, the tags most relevant to *context* (the event's description).
    """
    from agents.offline.lexicon import candidate_tags
    from agents.vocabulary import get_vocabulary

    vocab = get_vocabulary(schema_version)
    # Only the last path segment is being typed: "Sensory-event/Vis" completes "Vis".
    query = fragment.strip().strip("/").split("/")[-1].lower()
    if not query:
        found = candidate_tags(context, vocab, limit) if context.strip() else []
        return [(t.name, t.description, t.takes_value) for t in found][:limit]
    prefix, inside = [], []
    for info in vocab.all():
        if vocab.is_deprecated(info.name):
            continue
        lowered = info.name.lower()
        if lowered.startswith(query):
            prefix.append(info)
        elif query in lowered:
            inside.append(info)
    prefix.sort(key=lambda t: (len(t.name), t.name))
    inside.sort(key=lambda t: (len(t.name), t.name))
    chosen = {t.name: t for t in [*prefix, *inside][:limit]}
    if len(chosen) < limit and len(query) >= 3:
        for name in vocab.closest(query, limit=limit):
            info = vocab.get(name)
            if info is not None:
                chosen.setdefault(info.name, info)
    return [(t.name, t.description, t.takes_value) for t in list(chosen.values())[:limit]]
