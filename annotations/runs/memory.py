"""The portal's memory: reviewed annotations offered to later runs of similar descriptions.

A session is remembered for every user once a reviewer stood by its final annotation
(:func:`annotations.review_rules.stood_by_reviewer`: a reviewer's correction, or accepting reviews of the annotation
as it stands). A project's owner corrects her own levels without being a reviewer: her correction is remembered for
her runs alone (her projects' levels are her runs), never another user's, whose run would otherwise reuse her
private text verbatim and name a run they cannot open. Drafts, rejected runs and annotations that do not validate
are never remembered. Each example says where it came from (``MemoryExample.origin``); whose description a run's
page may show is decided per viewer (:func:`examples_for_page`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Exists,
    ExpressionWrapper,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)

from agents.memory import OWN, REVIEWED, most_similar
from agents.state import MemoryExample
from annotations.access import check_edit_project
from annotations.models import AnnotationSession, DatasetProject
from annotations.review_rules import standing_corrections, stood_by_reviewer, with_final_author
from annotations.selectors import visible_sessions

logger = logging.getLogger(__name__)

# The newest reviewed sessions a run chooses from: enough for a lab's vocabulary, small enough to
# compare against in a few milliseconds.
MAX_CANDIDATES = 2000
EXAMPLES_PER_RUN = 3


def _own_corrections(user_id: Any) -> Q:
    """On :func:`~annotations.review_rules.with_final_author`'s columns: *user_id*'s run whose final annotation
    she corrected herself. Nobody else's text: a reviewer's later correction replaces hers as the final one."""
    if user_id is None:
        return Q(pk__in=[])
    return Q(user_id=user_id, final_author_id=user_id)


def remembered_sessions(schema_version: str | None = None, *, user_id: Any = None) -> QuerySet[AnnotationSession]:
    """Sessions a run of *user_id* may learn from, newest first, each with its ``origin``: those a reviewer stood by
    (anyone's), and *user_id*'s own corrections (None: the command line, a run of nobody: reviewed ones only)."""
    qs = (AnnotationSession.objects.filter(is_valid=True)
          .exclude(final_annotation="").exclude(description=""))
    if schema_version is not None:
        qs = qs.filter(schema_version=schema_version)
    # Cheap first cut: only sessions with a review or a standing correction are annotated further.
    qs = qs.filter(Q(accept_count__gt=0) | Exists(standing_corrections(session=OuterRef("pk"))))
    reviewed, own = stood_by_reviewer(), _own_corrections(user_id)
    return (with_final_author(qs).filter(reviewed | own)
            .annotate(origin=Case(When(reviewed, then=Value(REVIEWED)), default=Value(OWN),
                                  output_field=CharField()))
            .order_by("-created_at"))


def memory_candidates(schema_version: str, *, user_id: Any = None, exclude: Any = None,
                      limit: int = MAX_CANDIDATES) -> list[MemoryExample]:
    """The newest *limit* annotations of *schema_version* a run of *user_id* may learn from, as the agents take them."""
    qs = remembered_sessions(schema_version, user_id=user_id)
    if exclude is not None:
        qs = qs.exclude(pk=exclude)
    rows = qs.values_list("pk", "description", "final_annotation", "origin")[:limit]
    return [MemoryExample(description=d, annotation=a, source_id=str(pk), origin=origin)
            for pk, d, a, origin in rows]


def reuse_allowed(session: AnnotationSession) -> bool:
    """Whether *session* may draw on memory: not when it annotates a level of a project that turned reuse off."""
    if session.dataset_level_id is None:
        return True
    return not DatasetProject.objects.filter(tasks__columns__levels__pk=session.dataset_level_id,
                                             reuse_memory=False).exists()


def set_memory_reuse(project: DatasetProject, *, user: Any, reuse: bool) -> DatasetProject:
    """Turn on or off, for *project*'s future level runs, the reuse of reviewed annotations from memory (403 for
    anyone but its owner). Runs already finished keep what they used; the level's page says which."""
    check_edit_project(user, project)
    DatasetProject.objects.filter(pk=project.pk).update(reuse_memory=bool(reuse))
    project.reuse_memory = bool(reuse)
    logger.info("dataset %s: memory reuse %s", project.pk, "on" if reuse else "off")
    return project


def examples_for(session: AnnotationSession, *, k: int = EXAMPLES_PER_RUN) -> list[MemoryExample]:
    """The *k* remembered annotations most similar to *session*'s description (synchronous: run off the loop);
    none for a level of a project that turned reuse off (:func:`set_memory_reuse`)."""
    if not session.description.strip() or not reuse_allowed(session):
        return []
    # The run's owner, not whoever queued it: a project's level runs are its owner's (access.level_run_owner).
    candidates = memory_candidates(session.schema_version, user_id=session.user_id, exclude=session.pk)
    return most_similar(session.description, candidates, k=k)


@dataclass(frozen=True)
class ShownExample:
    """One example a run used, as a viewer may see it: the source only if they may see that session."""

    source_id: str
    visible: bool
    description: str = ""
    url: str = ""
    reused: bool = False  # the run's annotation is this example's: it started from it, not just read it
    project: str = ""  # the dataset project the example annotated a level of, if any and visible
    other_project: bool = False  # ...and it is not the run's own project
    own: bool = False  # the source's owner corrected it herself and no reviewer stood by it: her own memory


def examples_for_page(session: AnnotationSession, viewer: Any) -> list[ShownExample]:
    """The examples *session* used, in order; another user's description only to a viewer who may see it."""
    ids = [str(i) for i in (session.examples_used or [])]
    if not ids:
        return []
    valid = []
    for value in ids:
        try:
            valid.append(AnnotationSession._meta.pk.to_python(value))
        except Exception:  # a malformed id shows as unavailable, never as an error page
            continue
    sources = with_final_author(visible_sessions(viewer).filter(pk__in=valid)).annotate(
        stood=ExpressionWrapper(stood_by_reviewer(), output_field=BooleanField()))
    seen = {str(row[0]): row for row in sources.values_list(
        "pk", "description", "final_annotation", "dataset_level__column__task__project_id",
        "dataset_level__column__task__project__name", "stood", "user_id", "final_author_id")}
    mine = _project_of(session)
    final = " ".join((session.final_annotation or "").split())
    shown = []
    for source_id in ids:
        if source_id in seen:
            pk, description, annotation, project_id, project_name, stood, owner_id, author_id = seen[source_id]
            shown.append(ShownExample(
                own=not stood and author_id is not None and author_id == owner_id,
                source_id=source_id, visible=True, description=description,
                url=AnnotationSession(pk=pk).get_absolute_url(),
                reused=bool(final) and " ".join((annotation or "").split()) == final,
                project=project_name or "", other_project=project_id is not None and project_id != mine))
        else:
            shown.append(ShownExample(source_id=source_id, visible=False))
    return shown


def _project_of(session: AnnotationSession) -> Any:
    if session.dataset_level_id is None:
        return None
    return (AnnotationSession.objects.filter(pk=session.pk)
            .values_list("dataset_level__column__task__project_id", flat=True).first())


def reused_example(session_id: Any, viewer: Any) -> ShownExample | None:
    """The reviewed annotation the run *session_id* started from (its annotation is that one), if any."""
    session = AnnotationSession.objects.filter(pk=session_id).first() if session_id else None
    if session is None:
        return None
    return next((e for e in examples_for_page(session, viewer) if e.reused), None)
