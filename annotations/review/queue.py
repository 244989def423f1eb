"""The review queue: which finished runs wait for a review, in the order a reviewer chose.

Orders are named in the query string (``?queue=newest``) and travel with the reviewer from the
queue to each run and on through "Save & next", so the next run is the one the queue shows next.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Case, F, IntegerField, Q, QuerySet, Value, When

from annotations.access import REVIEWABLE_STATUSES
from annotations.models import AnnotationSession

# Label of each order; the first is the default.
QUEUE_ORDERS: dict[str, str] = {
    "requested": "Requested by owners first",
    "oldest": "Oldest first",
    "newest": "Newest first",
    "problems": "Invalid or unfaithful first",
    "second": "Needs a second review",
}
DEFAULT_ORDER = "requested"
# Neighbours are found in the queue's first rows; a lab's queue is far shorter than this.
NEIGHBOUR_WINDOW = 5000


def clean_order(value: Any) -> str:
    """*value* if it names an order, else the default (a stale link still shows a queue)."""
    text = str(value or "").strip()
    return text if text in QUEUE_ORDERS else DEFAULT_ORDER


def review_queue(qs: QuerySet[AnnotationSession], order: str = DEFAULT_ORDER) -> QuerySet[AnnotationSession]:
    """The finished runs of *qs* waiting for a review, in *order*.

    "second" holds the runs with exactly one review, so a run stays reachable for a second
    opinion after its first review; every other order holds the runs nobody has reviewed yet
    and those whose owner asked for a review.
    """
    order = clean_order(order)
    finished = qs.filter(status__in=REVIEWABLE_STATUSES)
    if order == "second":
        return finished.filter(review_count=1).order_by("created_at", "id")
    pending = finished.filter(Q(review_count=0) | Q(review_requested_at__isnull=False))
    if order == "newest":
        return pending.order_by("-created_at", "-id")
    if order == "oldest":
        return pending.order_by("created_at", "id")
    if order == "problems":
        trouble = Case(When(is_valid=False, then=Value(0)), When(is_faithful=False, then=Value(1)),
                       default=Value(2), output_field=IntegerField())
        return pending.annotate(trouble=trouble).order_by("trouble", "created_at", "id")
    return pending.order_by(F("review_requested_at").asc(nulls_last=True), "created_at", "id")


def queue_neighbours(qs: QuerySet[AnnotationSession], session: AnnotationSession, order: str = DEFAULT_ORDER,
                     ) -> tuple[AnnotationSession | None, AnnotationSession | None]:
    """The runs just before and after *session* in the queue; a run not in it has the first as next."""
    ids = list(review_queue(qs, order).values_list("pk", flat=True)[:NEIGHBOUR_WINDOW])
    if session.pk in ids:
        at = ids.index(session.pk)
        previous_id = ids[at - 1] if at > 0 else None
        next_id = ids[at + 1] if at + 1 < len(ids) else None
    else:
        previous_id, next_id = None, ids[0] if ids else None
    wanted = [pk for pk in (previous_id, next_id) if pk is not None]
    found = {s.pk: s for s in AnnotationSession.objects.filter(pk__in=wanted).only("id", "description",
                                                                                   "created_at")}
    return found.get(previous_id), found.get(next_id)


def queue_url(session: AnnotationSession | None, order: str) -> str:
    """A run's page within the queue (keeps the order), or "" for no run."""
    if session is None:
        return ""
    return f"{session.get_absolute_url()}?queue={clean_order(order)}"
