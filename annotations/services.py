"""Business logic for runs: create, start, execute, cancel, re-run, recover."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from agents.llm.base import ChatModel
from agents.schema import UnknownSchemaVersion
from agents.state import AnnotationState, WorkflowOptions
from agents.workflow import InvalidInput, StimulusImage, check_description, check_options, run_workflow
from annotations.llm import chat_model_for
from annotations.models import FINISHED_STATUSES, AnnotationSession, SessionStatus
from annotations.recorder import SessionRecorder, broadcast

logger = logging.getLogger(__name__)

ALLOWED_IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpg"}


class RequestError(ValueError):
    """A request that cannot be carried out; the message is shown to the user as is."""


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
        raise RequestError(f"invalid option: {exc}") from exc
    try:
        return check_options(options)
    except (InvalidInput, UnknownSchemaVersion) as exc:
        raise RequestError(str(exc)) from exc


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


def check_image(image: UploadedFile, max_bytes: int) -> str:
    """The image's MIME type after checking size and content; raises :class:`RequestError`."""
    if image.size is not None and image.size > max_bytes:
        raise RequestError(f"image is {image.size} bytes; the limit is {max_bytes}")
    head = image.read(16)
    image.seek(0)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    raise RequestError("image must be a PNG or JPEG file")


def create_session(*, user: Any, description: str, options: WorkflowOptions,
                   image: UploadedFile | None = None, max_image_bytes: int = 5 * 1024 * 1024) -> AnnotationSession:
    """Store a queued session after checking everything; nothing is stored when a check fails."""
    try:
        text = check_description(description, has_image=image is not None)
    except InvalidInput as exc:
        raise RequestError(str(exc)) from exc
    if image is not None:
        check_image(image, max_image_bytes)
    session = AnnotationSession(user=user if user is not None and user.is_authenticated else None,
                                description=text, options=options.to_dict(),
                                schema_version=options.schema_version)
    if image is not None:
        session.image = image
    session.save()
    return session


def start_session(session: AnnotationSession) -> None:
    """Queue the run once the session row is committed, so a worker always finds it."""
    from annotations.tasks import run_session_task

    session_id = str(session.pk)
    transaction.on_commit(lambda: run_session_task.enqueue(session_id))


def _claim(session_id: Any) -> AnnotationSession | None:
    """Mark a queued session running; None when another worker has it or it is gone."""
    claimed = AnnotationSession.objects.filter(pk=session_id, status=SessionStatus.QUEUED).update(
        status=SessionStatus.RUNNING, started_at=timezone.now())
    if not claimed:
        return None
    # The user comes along: the async caller cannot load a lazy relation.
    return AnnotationSession.objects.select_related("user").get(pk=session_id)


def _sniff(head: bytes) -> str:
    # Only PNG and JPEG are ever accepted (check_image), so the signature decides between them.
    return "image/png" if head.startswith(b"\x89PNG") else "image/jpeg"


def image_type(image: Any) -> str:
    """The MIME type of a stored stimulus."""
    with image.open("rb") as fh:
        return _sniff(fh.read(8))


def _image_of(session: AnnotationSession) -> StimulusImage | None:
    if not session.image:
        return None
    with session.image.open("rb") as fh:
        data = fh.read()
    return StimulusImage(data=data, mime_type=_sniff(data))


def finish(session_id: Any, state: AnnotationState) -> AnnotationSession:
    session = AnnotationSession.objects.get(pk=session_id)
    session.status = state.status or SessionStatus.FAILED
    session.error = state.error
    session.machine_annotation = state.annotation
    session.final_annotation = state.annotation
    session.is_valid = state.is_valid if state.iterations else None
    session.is_faithful = state.is_faithful
    session.is_complete = state.assessment.is_complete if state.assessment else None
    session.evaluation_feedback = state.evaluation.feedback if state.evaluation else ""
    session.assessment_feedback = state.assessment.feedback if state.assessment else ""
    session.iteration_count = len(state.iterations)
    session.finished_at = timezone.now()
    session.save()
    return session


def fail(session_id: Any, message: str, *, interrupted: bool = False) -> None:
    AnnotationSession.objects.filter(pk=session_id).exclude(status__in=FINISHED_STATUSES).update(
        status=SessionStatus.FAILED, error=message, interrupted=interrupted, finished_at=timezone.now())


async def execute_session(session_id: Any, *, llm: ChatModel | None = None,
                          use_configured_llm: bool = True) -> AnnotationSession | None:
    """Run the workflow for a queued session, storing every step as it happens."""
    session = await sync_to_async(_claim)(session_id)
    if session is None:
        logger.info("session %s is not queued; nothing to run", session_id)
        return None
    await broadcast(session_id, "status")
    recorder = SessionRecorder(session_id)
    owned: ChatModel | None = None
    try:
        if llm is None and use_configured_llm:
            llm = owned = await sync_to_async(chat_model_for)(session.user)
        image = await sync_to_async(_image_of)(session)
        state = await run_workflow(session.description, WorkflowOptions.from_dict(session.options), llm=llm,
                                   observer=recorder, should_cancel=recorder.should_cancel, image=image)
        session = await sync_to_async(finish)(session_id, state)
    except Exception as exc:
        # Whatever broke, the session must not stay "running" and the user gets one line.
        logger.exception("run of session %s failed", session_id)
        await sync_to_async(fail)(session_id, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        session = await AnnotationSession.objects.aget(pk=session_id)
    if owned is not None:
        await _close(owned)
    await broadcast(session_id, "status")
    return session


async def _close(model: ChatModel) -> None:
    """Release the model's connection pool: in the embedded server, runs share one long-lived loop."""
    close = getattr(model, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:
        logger.warning("closing the LLM client failed", exc_info=True)


def request_cancel(session: AnnotationSession) -> bool:
    """Ask a queued or running session to stop; True when it was still going."""
    if session.is_finished:
        return False
    updated = AnnotationSession.objects.filter(pk=session.pk, status=SessionStatus.QUEUED).update(
        status=SessionStatus.CANCELLED, cancel_requested=True, error="cancelled by the user",
        finished_at=timezone.now())
    if not updated:
        AnnotationSession.objects.filter(pk=session.pk).update(cancel_requested=True)
    return True


def rerun_session(session: AnnotationSession, *, user: Any) -> AnnotationSession:
    """A fresh session with the same description, options and image."""
    new = AnnotationSession.objects.create(user=user if user.is_authenticated else session.user,
                                           description=session.description, options=session.options,
                                           schema_version=session.schema_version, image=session.image.name or "",
                                           bids_column=session.bids_column, bids_level=session.bids_level)
    start_session(new)
    return new


def mark_interrupted_runs() -> int:
    """At start-up of the embedded server: runs left queued or running were cut off by the stop."""
    count = AnnotationSession.objects.exclude(status__in=FINISHED_STATUSES).update(
        status=SessionStatus.FAILED, interrupted=True, error="interrupted by a server stop; re-run it",
        finished_at=timezone.now())
    if count:
        logger.warning("marked %d interrupted run(s) as failed", count)
    return count
