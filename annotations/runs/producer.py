"""Who produced a run's machine annotation (the offline annotator or the chat model that answered), and the model
configuration it ran with."""

from __future__ import annotations

from typing import Any

from agents.llm.configuration import OFFLINE_MODEL, configuration_of
from annotations.models import AnnotationSession, LLMCallRecord

OFFLINE_PRODUCER = OFFLINE_MODEL


def producer_of(session_id: Any) -> str:
    """The model named by the run's last annotation call (what actually answered, a router's
    choice included), else the offline annotator, which makes no calls."""
    model = (LLMCallRecord.objects.filter(session_id=session_id, agent="annotation").exclude(model="")
             .order_by("-id").values_list("model", flat=True).first())
    return model or OFFLINE_PRODUCER


def record_configuration(session_id: Any, llm: object | None, schema_version: str, *, model: str = "") -> None:
    """Store the model configuration a run starts with (:func:`agents.llm.configuration.configuration_of`)."""
    found = configuration_of(llm, schema_version, model=model)
    AnnotationSession.objects.filter(pk=session_id).update(
        llm_provider=found.provider[:255], llm_model=found.model[:255], llm_constraint=found.constraint[:16],
        prompt_version=found.prompt_version[:32])
