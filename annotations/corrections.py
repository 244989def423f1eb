"""A correction of a run's annotation: stored as a revision; one that validates becomes the final annotation.

Below the concerns because two of them correct: a reviewer on the run's page (:mod:`annotations.review`) and
a project's owner on a dataset level's page (:mod:`annotations.datasets.level_fix`); review sits above
datasets (its page places a run in a dataset level), so the correction cannot live in review. Reviews'
request errors (:class:`ReviewError`) and the checks both share live here with it.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from agents.annotation.parse import MAX_ANNOTATION_CHARS as PARSED_MAX
from agents.state import ValidationIssue
from annotations.access import REVIEWABLE_STATUSES, can_review
from annotations.errors import FieldError
from annotations.models import AnnotationSession, Revision

logger = logging.getLogger(__name__)

MAX_COMMENT_CHARS = 5000
MAX_ANNOTATION_CHARS = PARSED_MAX  # one limit for what a model writes and what a reviewer does


class ReviewError(FieldError):
    """A review request that cannot be carried out; *field* names the input at fault."""


def check_reviewable(session: AnnotationSession, field: str = "session") -> None:
    """Refuse a review or correction of a run that has no finished annotation."""
    if session.status not in REVIEWABLE_STATUSES:
        raise ReviewError(field, f"only finished sessions with an annotation can be reviewed; "
                                 f"this one is {session.get_status_display().lower()}")


def clean_comment(value: Any) -> str:
    text = str(value or "").strip()
    if len(text) > MAX_COMMENT_CHARS:
        raise ReviewError("comment", f"comment is {len(text)} characters; the limit is {MAX_COMMENT_CHARS}")
    return text


def lock_session(session: AnnotationSession) -> None:
    """Hold *session*'s row until the transaction ends: its reviews and corrections change one at a time."""
    AnnotationSession.objects.select_for_update().filter(pk=session.pk).values_list("pk").first()


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
    by_reviewer = can_review(author)  # through has_perm, now: what the memory may share is decided here
    if not (level_owner or by_reviewer):
        raise PermissionError("only reviewers can correct annotations")
    text = _clean_correction(hed)
    comment = clean_comment(comment)
    check_reviewable(session, "hed")
    no_extend = bool((session.options or {}).get("no_extend", False))
    issues = [issue_dict(i) for i in check_annotation(text, session.schema_version, no_extend=no_extend)]
    is_valid = not any(i["severity"] == "error" for i in issues)
    if not is_valid and not draft:
        raise CorrectionRefused(issues)
    with transaction.atomic():
        lock_session(session)
        current = AnnotationSession.objects.only("final_annotation").get(pk=session.pk).final_annotation
        if text == current and not draft:
            raise ReviewError("hed", "the correction is the same as the current annotation")
        fields = {"before": current, "after": text, "is_valid": is_valid, "issues": issues, "comment": comment}
        revision = Revision.objects.filter(session=session, author=author, is_draft=True).first()
        if revision is None:
            revision = Revision(session=session, author=author)
        for name, value in {**fields, "is_draft": draft, "by_reviewer": by_reviewer}.items():
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


__all__ = ["MAX_ANNOTATION_CHARS", "MAX_COMMENT_CHARS", "CorrectionRefused", "ReviewError", "check_annotation",
           "check_reviewable", "clean_comment", "correct_annotation", "issue_dict", "lock_session"]
