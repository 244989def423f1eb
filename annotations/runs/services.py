"""Business logic for runs: check input, create, start, cancel, re-run, recover."""

from __future__ import annotations

import logging
from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from agents.schema import UnknownSchemaVersion
from agents.state import WorkflowOptions
from agents.workflow import InvalidInput, check_description, check_options
from annotations.access import check_edit_project, level_run_owner, project_of_run
from annotations.errors import RequestError, sentence
from annotations.limits import check_level_quota, check_run_quota
from annotations.llm.status import vision_model_for
from annotations.models import AnnotationSession, SessionStatus
from annotations.runs.images import check_image
from annotations.runs.lease import end_lost_run, is_lost
from annotations.runs.tasks import run_session_task

logger = logging.getLogger(__name__)


def build_options(data: dict[str, Any] | None) -> WorkflowOptions:
    """Options from user input, every field checked; raises :class:`RequestError` naming the field."""
    data = dict(data or {})
    defaults = WorkflowOptions()
    try:
        options = WorkflowOptions(
            schema_version=str(data.get("schema_version") or defaults.schema_version),
            max_validation_attempts=int(data.get("max_validation_attempts", defaults.max_validation_attempts)),
            max_total_iterations=int(data.get("max_total_iterations", defaults.max_total_iterations)),
            run_assessment=_as_bool(data.get("run_assessment", defaults.run_assessment)),
            no_extend=_as_bool(data.get("no_extend", defaults.no_extend)),
        )
    except (TypeError, ValueError) as exc:
        raise RequestError(sentence(f"invalid option: {exc}")) from exc
    try:
        options = check_options(options)
    except UnknownSchemaVersion as exc:
        raise RequestError(sentence(str(exc)), field="schema_version") from exc
    except InvalidInput as exc:
        raise RequestError(sentence(str(exc)), field=exc.field) from exc
    limit = AnnotationSession._meta.get_field("schema_version").max_length
    if limit and len(options.schema_version) > limit:  # a long list of libraries; PostgreSQL would refuse it
        raise RequestError(f"the schema list {options.schema_version!r} is longer than the {limit} characters "
                           "a run can store", field="schema_version")
    return options


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"1", "true", "yes", "on"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"", "0", "false", "no", "off"}:
        return False
    if isinstance(value, int):
        return bool(value)
    raise ValueError(f"not a yes/no value: {value!r}")


def create_session(*, user: Any, description: str, options: WorkflowOptions,
                   image: UploadedFile | None = None, max_image_bytes: int = 5 * 1024 * 1024) -> AnnotationSession:
    """Store a queued session after checking everything; nothing is stored when a check fails."""
    try:
        text = check_description(description, has_image=image is not None)
    except InvalidInput as exc:
        raise RequestError(sentence(str(exc)), field=exc.field) from exc
    if image is not None:
        check_image(image, max_image_bytes)
        check_vision(user)
    session = AnnotationSession(user=user if user is not None and user.is_authenticated else None,
                                description=text, options=options.to_dict(),
                                schema_version=options.schema_version)
    if image is not None:
        session.image = image
    with transaction.atomic():  # the quota's count and the new row, under the user's lock
        check_run_quota(user)
        session.save()
    return session


NO_VISION_MODEL = ("Image descriptions need a vision model, and none is configured. Set a vision model on the "
                   "LLM settings page, or describe the event in words.")


def check_vision(user: Any) -> None:
    """Refuse an image when no vision model would describe it: the run could only fail."""
    if not vision_model_for(user):
        raise RequestError(NO_VISION_MODEL, field="image")


def start_session(session: AnnotationSession) -> None:
    """Queue the run once the session row is committed, so a worker always finds it."""
    session_id = str(session.pk)
    transaction.on_commit(lambda: run_session_task.enqueue(session_id))


def request_cancel(session: AnnotationSession) -> bool:
    """Ask a queued or running session to stop; True when it was still going.

    A queued run, and a running one whose worker died (its lease lapsed: nobody would see the
    request), end here and now; a live worker stops its run at the next step.
    """
    if session.is_finished:
        return False
    updated = AnnotationSession.objects.filter(pk=session.pk, status=SessionStatus.QUEUED).update(
        status=SessionStatus.CANCELLED, cancel_requested=True, error="cancelled by the user",
        finished_at=timezone.now())
    if not updated and is_lost(session):
        updated = end_lost_run(session, SessionStatus.CANCELLED, "cancelled by the user (its worker had stopped)")
    if not updated:
        AnnotationSession.objects.filter(pk=session.pk).update(cancel_requested=True)
    return True


def may_rerun(session: AnnotationSession) -> bool:
    """A finished run, or one whose worker died, may be started again as a new session."""
    return session.is_finished or is_lost(session)


def rerun_session(session: AnnotationSession, *, user: Any) -> AnnotationSession:
    """A fresh session with the same description, options and image; a lost original is ended first.

    A run of a dataset level is a run of that project: only its owner (and staff) may start one
    (403 otherwise), it counts against ``HEDIT_DATASET_RATE`` and belongs to the project's owner, like
    every run of the project. Any other run counts against ``HEDIT_RUN_RATE`` and belongs to *user*.
    """
    starter = user if user.is_authenticated else session.user
    project = project_of_run(session)
    if project is not None:
        check_edit_project(starter, project)
    if session.image:
        check_vision(starter)
    if not session.is_finished and is_lost(session):
        end_lost_run(session, SessionStatus.FAILED, "its worker stopped; re-run as a new session")
    owner = level_run_owner(starter, project) if project is not None else starter
    with transaction.atomic():  # the quota's count and the new row, under the owner's lock
        if project is not None:
            check_level_quota(owner, 1)
        else:
            check_run_quota(owner)
        new = AnnotationSession.objects.create(
            user=owner, description=session.description, options=session.options,
            schema_version=session.schema_version, image=session.image.name or "",
            dataset_level_id=session.dataset_level_id)
        start_session(new)
    return new
