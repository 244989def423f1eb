"""Business logic of reviewing: ratings and verdicts, human corrections, BIDS assignment.

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

from agents.state import ValidationIssue
from annotations.access import REVIEWABLE_STATUSES, can_review, owns
from annotations.errors import FieldError
from annotations.models import AnnotationSession, Review, Revision, Verdict
from annotations.records import ReviewSummary, summary_of
from annotations.review_rules import is_corrected

logger = logging.getLogger(__name__)

MAX_COMMENT_CHARS = 5000
MAX_ANNOTATION_CHARS = 20000
# A BIDS column is a TSV header: no whitespace or separators, so a tool can match it exactly.


class ReviewError(FieldError):
    """A review request that cannot be carried out; *field* names the input at fault."""


# --- reviews --------------------------------------------------------------------------------


def _check_reviewable(session: AnnotationSession, field: str = "session") -> None:
    if session.status not in REVIEWABLE_STATUSES:
        raise ReviewError(field, f"only finished sessions with an annotation can be reviewed; "
                                 f"this one is {session.get_status_display().lower()}")


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


def clean_comment(value: Any) -> str:
    text = str(value or "").strip()
    if len(text) > MAX_COMMENT_CHARS:
        raise ReviewError("comment", f"comment is {len(text)} characters; the limit is {MAX_COMMENT_CHARS}")
    return text


def submit_review(session: AnnotationSession, reviewer: Any, *, rating: Any, verdict: Any,
                  comment: Any = "") -> tuple[Review, bool]:
    """Add *reviewer*'s review of *session*, or replace their earlier one; True when it is new.

    Raises :class:`PermissionError` for a non-reviewer and :class:`ReviewError` for bad input.
    """
    if not can_review(reviewer):
        raise PermissionError("only reviewers can review annotations")
    rating, verdict, comment = clean_rating(rating), clean_verdict(verdict), clean_comment(comment)
    _check_reviewable(session)
    with transaction.atomic():
        # Locking the session row serialises concurrent reviews of one session, so each
        # recomputation sees every review committed before it.
        _lock(session)
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
    _check_reviewable(session)
    if session.review_requested_at is None:
        session.review_requested_at = timezone.now()
        AnnotationSession.objects.filter(pk=session.pk).update(review_requested_at=session.review_requested_at)
        logger.info("%s asked for a review of session %s", user, session.pk)
    return session


def _lock(session: AnnotationSession) -> None:
    AnnotationSession.objects.select_for_update().filter(pk=session.pk).values_list("pk").first()


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


def check_annotation(hed: str, schema_version: str, *, no_extend: bool = False) -> list[ValidationIssue]:
    # Imported here: loading hedtools is slow and most callers of this module never validate.
    from agents.validation import validate_hed

    return validate_hed(hed, schema_version, no_extend=no_extend)


def issue_dict(issue: ValidationIssue) -> dict[str, str]:
    return {"code": issue.code, "severity": issue.severity, "message": issue.message, "hint": issue.hint,
            "tag": issue.tag}


class CorrectionRefused(ReviewError):
    """A correction that does not validate: it may only be kept as a draft.  *issues* says why."""

    def __init__(self, issues: list[dict[str, str]]) -> None:
        errors = [i for i in issues if i["severity"] == "error"]
        first = errors[0]["message"] if errors else "it does not validate"
        super().__init__("hed", f"The correction does not validate ({len(errors)} error"
                                f"{'s' if len(errors) != 1 else ''}; first: {first}). Fix it, or save it "
                                f"as a draft: a draft never becomes the final annotation.")
        self.issues = issues

    def as_dict(self) -> dict[str, Any]:
        return {"hed": [self.message], "issues": self.issues}


def _clean_correction(hed: Any) -> str:
    text = " ".join(str(hed or "").split())
    if not text:
        raise ReviewError("hed", "the corrected annotation is empty")
    if len(text) > MAX_ANNOTATION_CHARS:
        raise ReviewError("hed", f"annotation is {len(text)} characters; the limit is {MAX_ANNOTATION_CHARS}")
    return text


def correct_annotation(session: AnnotationSession, author: Any, hed: Any, *, comment: Any = "",
                       draft: bool = False, level_owner: bool = False) -> Revision:
    """Store *author*'s correction; a valid one becomes the session's final annotation.

    A correction that does not validate is refused (:class:`CorrectionRefused`, with its issues)
    unless *draft*: a draft is kept (one per author and session, updated in place), shown as
    such, and never touches the final annotation, so the session's validity and everything
    exported from it always describe an annotation that validates.  Saving a correction for
    real turns the author's draft into that revision.  The machine's annotation stays as it was.
    *level_owner*: the caller checked ``access.can_correct_level`` (a project's owner fixing its level's run).
    """
    if not (level_owner or can_review(author)):
        raise PermissionError("only reviewers can correct annotations")
    text = _clean_correction(hed)
    comment = clean_comment(comment)
    _check_reviewable(session, "hed")
    no_extend = bool((session.options or {}).get("no_extend", False))
    issues = [issue_dict(i) for i in check_annotation(text, session.schema_version, no_extend=no_extend)]
    is_valid = not any(i["severity"] == "error" for i in issues)
    if not is_valid and not draft:
        raise CorrectionRefused(issues)
    with transaction.atomic():
        _lock(session)
        current = AnnotationSession.objects.only("final_annotation").get(pk=session.pk).final_annotation
        if text == current and not draft:
            raise ReviewError("hed", "the correction is the same as the current annotation")
        fields = {"before": current, "after": text, "is_valid": is_valid, "issues": issues, "comment": comment}
        revision = Revision.objects.filter(session=session, author=author, is_draft=True).first()
        if revision is None:
            revision = Revision(session=session, author=author)
        for name, value in {**fields, "is_draft": draft}.items():
            setattr(revision, name, value)
        if not draft and revision.pk is not None:
            # A draft saved for real is dated now, so the revisions stay in the order they took effect.
            revision.created_at = timezone.now()
        revision.save()
        if not draft:
            AnnotationSession.objects.filter(pk=session.pk).update(final_annotation=text, is_valid=True)
            session.final_annotation, session.is_valid = text, True
    logger.info("%s %s session %s (valid=%s)", author, "drafted a correction of" if draft else "corrected",
                session.pk, is_valid)
    return revision


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
