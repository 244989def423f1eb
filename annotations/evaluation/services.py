"""What the evaluation page asks for: start an evaluation from the form, watch a set or stop watching it."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.core.files.uploadedfile import UploadedFile

from annotations.datasets.selectors import visible_projects
from annotations.errors import FieldError, Forbidden, NotFound
from annotations.evaluation.batches import start_evaluation
from annotations.evaluation.forms import REVIEWED_ALL, UPLOAD
from annotations.evaluation.sets import MAX_CSV_BYTES, gold_set, reviewed_set, visible_set
from annotations.models import EvaluationBatch, EvaluationSet

logger = logging.getLogger(__name__)


def _uploaded_text(upload: UploadedFile) -> str:
    """The upload's text, its size checked before it is read."""
    if upload.size is None or upload.size > MAX_CSV_BYTES:
        raise FieldError("file", f"The file is larger than {MAX_CSV_BYTES // (1024 * 1024)} MiB.")
    data = upload.read(MAX_CSV_BYTES + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FieldError("file", "The file is not UTF-8 text.") from None


def chosen_set(user: Any, source: str, upload: UploadedFile | None = None) -> EvaluationSet:
    """The set the form names: a saved one, the reviewed annotations (all, or a project's), or an uploaded CSV."""
    if source == UPLOAD:
        if upload is None:
            raise FieldError("file", "Choose the CSV to upload.")
        return gold_set(user, upload.name or "uploaded.csv", _uploaded_text(upload))
    if source == REVIEWED_ALL:
        return reviewed_set(user)
    kind, _, value = source.partition(":")
    if kind == "set":
        return visible_set(user, value)
    if kind == "reviewed":
        try:
            project = visible_projects(user).filter(pk=uuid.UUID(value)).first()
        except ValueError:
            project = None
        if project is None:
            raise NotFound("There is no such project.", field="source")
        return reviewed_set(user, project)
    raise FieldError("source", "Choose an evaluation set.")


def start_from_form(user: Any, data: dict[str, Any]) -> EvaluationBatch:
    """Start the evaluation the form describes (its data cleaned); the set is watched when asked."""
    evaluation_set = chosen_set(user, data["source"], data.get("file"))
    batch = start_evaluation(evaluation_set, user=user, model=data.get("model") or "",
                             schema_version=data["schema_version"])
    if data.get("watch") and not evaluation_set.watch and may_change(user, evaluation_set):
        set_watched(evaluation_set, user, True)
    return batch


def may_change(user: Any, evaluation_set: EvaluationSet) -> bool:
    """Its owner (and staff) choose whether a set is watched."""
    return bool(user.is_staff or (evaluation_set.owner_id is not None and evaluation_set.owner_id == user.pk))


def set_watched(evaluation_set: EvaluationSet, user: Any, watched: bool) -> EvaluationSet:
    if not may_change(user, evaluation_set):
        raise Forbidden("Only the owner of this evaluation set can choose whether it is watched.")
    EvaluationSet.objects.filter(pk=evaluation_set.pk).update(watch=watched)
    evaluation_set.watch = watched
    logger.info("evaluation set %s watched: %s", evaluation_set.pk, watched)
    return evaluation_set
