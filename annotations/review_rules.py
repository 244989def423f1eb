"""What reviewers' work means, said once: when a run is accepted and when its annotation is corrected.

Every reader asks these questions (a dataset level's status, the portal's memory, the run record, the API,
the review panel); each used to answer them in its own words, and two of them disagreed on "accepted" (one
accepting review against the memory's more accepts than rejects). They all call the functions here.

- **accepted**: more accepting reviews than rejecting ones (a run one reviewer accepts and another rejects is
  disputed: nobody stands by it), or a saved correction that validates (:func:`standing_corrections`).
- **corrected**: the final annotation is there and is not the machine's (a reviewer's correction is final).
- **stood by a reviewer** (what other users' runs may reuse, :func:`with_final_author`): the final annotation is a
  reviewer's correction, or reviewers accepted it, after its last correction if it has one. A project's owner also
  corrects her own levels (no reviewer): that text is hers, and serves her runs alone.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, F, OuterRef, Q, QuerySet, Subquery

from annotations.models import AnnotationSession, Review, Revision, Verdict


def accepted(accepts: int, rejects: int) -> bool:
    """Whether reviewers stand by a run: more of them accepted it than rejected it (needs-fix counts for neither)."""
    return accepts > rejects


def accepted_by_reviews() -> Q:
    """:func:`accepted` as a filter on :class:`AnnotationSession`'s stored verdict counts."""
    return Q(accept_count__gt=F("reject_count"))


def standing_corrections(**filters: Any) -> QuerySet[Revision]:
    """Corrections that stand: saved for real (not drafts) and valid. One is a reviewer's acceptance of the
    annotation they wrote; *filters* narrow the revisions (``session=OuterRef("pk")``, ``session__...``)."""
    return Revision.objects.filter(is_draft=False, is_valid=True, **filters)


def with_final_author(sessions: QuerySet[AnnotationSession]) -> QuerySet[AnnotationSession]:
    """*sessions* with who wrote their final annotation, for :func:`stood_by_reviewer`: ``final_author_id`` and
    ``final_by_reviewer`` of the last standing correction (None: no correction, the machine's), its
    ``final_corrected_at``, and ``accepted_since``: an accepting review saved after it."""
    last = standing_corrections(session=OuterRef("pk")).order_by("-created_at", "-id")
    annotated = sessions.annotate(
        final_author_id=Subquery(last.values("author_id")[:1]),
        final_by_reviewer=Subquery(last.values("by_reviewer")[:1]),
        final_corrected_at=Subquery(last.values("created_at")[:1]))
    # An accepting review saved after the last correction was given with that correction in front of the reviewer.
    since = Review.objects.filter(session=OuterRef("pk"), verdict=Verdict.ACCEPT,
                                  updated_at__gte=OuterRef("final_corrected_at"))
    return annotated.annotate(accepted_since=Exists(since))


def stood_by_reviewer() -> Q:
    """On :func:`with_final_author`'s columns: a reviewer wrote the final annotation, or reviewers accepted it (as
    the machine wrote it, or after its last correction). Never a text only its (non-reviewer) author vouches for."""
    return Q(final_by_reviewer=True) | (accepted_by_reviews() & (Q(final_corrected_at__isnull=True)
                                                                  | Q(accepted_since=True)))


def corrected(final_annotation: str | None, machine_annotation: str | None) -> bool:
    """Whether *final_annotation* is a reviewer's correction: there is one and it is not the machine's.

    A correction is the final annotation; the evaluation (is_faithful, is_complete) judged the machine's.
    """
    return bool(final_annotation) and final_annotation != (machine_annotation or "")


def is_corrected(session: AnnotationSession) -> bool:
    """:func:`corrected` of a stored session (no query)."""
    return corrected(session.final_annotation, session.machine_annotation)


# --- what reviewers made of a run: its outcome, and the annotation they stand by -------------------

ACCEPTED, CORRECTED, REJECTED = "accepted", "corrected", "rejected"


def review_outcome(final_annotation: str | None, machine_annotation: str | None, review_count: int, accepts: int,
                   rejects: int) -> str | None:
    """What reviewers made of a run: ``corrected`` (a correction is its final annotation), ``accepted`` (as is:
    :func:`accepted`), ``rejected`` (reviewed, and nobody stands by it: rejected, disputed, or judged in need of a
    fix nobody made yet), or None when nobody reviewed it."""
    if corrected(final_annotation, machine_annotation):
        return CORRECTED
    if not review_count:
        return None
    return ACCEPTED if accepted(accepts, rejects) else REJECTED


def reviewed_annotation(final_annotation: str | None, machine_annotation: str | None, review_count: int,
                        accepts: int, rejects: int) -> str | None:
    """The annotation reviewers stand by (the correction, or the machine's where they accepted it as is); None
    when they stand by none (not reviewed, or rejected)."""
    outcome = review_outcome(final_annotation, machine_annotation, review_count, accepts, rejects)
    return (final_annotation or "") if outcome in (ACCEPTED, CORRECTED) else None
