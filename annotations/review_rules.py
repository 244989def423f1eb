"""What reviewers' work means, said once: when a run is accepted and when its annotation is corrected.

Every reader asks these questions (a dataset level's status, the portal's memory, the run record, the API,
the review panel); each used to answer them in its own words, and two of them disagreed on "accepted" (one
accepting review against the memory's more accepts than rejects). They all call the functions here.

- **accepted**: more accepting reviews than rejecting ones (a run one reviewer accepts and another rejects is
  disputed: nobody stands by it), or a saved correction that validates (:func:`standing_corrections`).
- **corrected**: the final annotation is there and is not the machine's (a reviewer's correction is final).
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, Q, QuerySet

from annotations.models import AnnotationSession, Revision


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
