"""Who produced a run's machine annotation: the offline annotator or the chat model that answered."""

from __future__ import annotations

from typing import Any

from annotations.models import LLMCallRecord

OFFLINE_PRODUCER = "offline annotator"


def producer_of(session_id: Any) -> str:
    """The model named by the run's last annotation call (what actually answered, a router's
    choice included), else the offline annotator, which makes no calls."""
    model = (LLMCallRecord.objects.filter(session_id=session_id, agent="annotation").exclude(model="")
             .order_by("-id").values_list("model", flat=True).first())
    return model or OFFLINE_PRODUCER
