"""What a user's next run will use, said truthfully, and a one-call connection test.

Both ask :func:`annotations.llm.client.chat_model_for`, the function that picks the model for
runs, so the settings page and the annotate form can never disagree with what a run does.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync

from agents.llm.base import LLMError, UnavailableModel
from agents.llm.openai_model import OpenAIChatModel
from annotations.errors import sentence
from annotations.llm.client import chat_model_for
from annotations.models import UserLLMSettings

logger = logging.getLogger(__name__)

# A connection test asks for one word: enough to prove the endpoint, key and model answer.
PING_MESSAGES = [{"role": "user", "content": "Reply with the single word: ready"}]
PING_MAX_TOKENS = 5
PING_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class RunLLM:
    """Which model answers a user's runs: ``kind`` is offline, server, byok (server endpoint with the
    user's key), user (their own endpoint) or unavailable (runs will fail, ``reason`` says why)."""

    kind: str
    base_url: str = ""
    model: str = ""
    vision_model: str = ""
    reason: str = ""

    @property
    def sentence(self) -> str:
        if self.kind == "offline":
            return "Your next run will use the offline annotator: no language model is configured."
        if self.kind == "unavailable":
            return f"Your next run will fail: {sentence(self.reason)}"
        model = self.model or "(no model set)"
        if self.kind == "user":
            return f"Your next run will use your endpoint {self.base_url} with model {model}."
        if self.kind == "byok":
            return f"Your next run will use the server's endpoint {self.base_url} with your key and model {model}."
        return f"Your next run will use the server's model {model} at {self.base_url}."

    @property
    def images(self) -> str:
        if self.vision_model:
            return f"Stimulus images are described by {self.vision_model}."
        return "Stimulus images are refused: no vision model is configured."


def _kind(user: Any, draft: UserLLMSettings | None, key: str | None) -> str:
    stored = draft if draft is not None else (
        UserLLMSettings.objects.filter(user=user).first() if getattr(user, "is_authenticated", False) else None)
    if stored is None:
        return "server"
    if stored.base_url or stored.provider:
        return "user"
    return "byok" if (key or (key is None and stored.encrypted_api_key)) else "server"


def run_llm_for(user: Any, *, draft: UserLLMSettings | None = None, key: str | None = None) -> RunLLM:
    """What *user*'s next run uses (or would, with *draft* settings), from the runs' own choice."""
    model = chat_model_for(user, draft=draft, key=key)
    if model is None:
        return RunLLM("offline")
    if isinstance(model, UnavailableModel):
        return RunLLM("unavailable", reason=model.reason)
    config = model.config  # type: ignore[attr-defined]  # an OpenAIChatModel here
    return RunLLM(_kind(user, draft, key), base_url=config.base_url, model=config.model,
                  vision_model=(config.agent_models.get("vision") or "").strip())


def vision_model_for(user: Any) -> str:
    """The model that would describe *user*'s stimulus image, or "" when none is configured.

    Only an explicit vision model counts (``HEDIT_LLM_MODEL_VISION`` or the user's own): a text
    model handed an image fails the run, which is what this check is there to prevent.
    """
    return run_llm_for(user).vision_model


@dataclass(frozen=True)
class ConnectionResult:
    ok: bool
    message: str


def check_connection(user: Any, draft: UserLLMSettings, key: str | None) -> ConnectionResult:
    """One tiny completion with *draft* settings through the runs' own (guarded) client path."""
    model = chat_model_for(user, draft=draft, key=key)
    if model is None:
        return ConnectionResult(False, "Nothing to test: no endpoint is set, so runs use the offline annotator.")
    if not isinstance(model, OpenAIChatModel):
        return ConnectionResult(False, sentence(getattr(model, "reason", "no model is configured")))
    # Same endpoint, key, trust and allow-list as a run; only the size of the call is cut down,
    # and no response cache, so the answer is a real one.
    config = dataclasses.replace(model.config, max_tokens=PING_MAX_TOKENS, max_retries=0,
                                 timeout=min(model.config.timeout, PING_TIMEOUT_S))
    probe = OpenAIChatModel(config)
    try:
        reply = async_to_sync(_ask)(probe)
    except LLMError as exc:
        logger.info("connection test of user %s failed: %s", getattr(user, "pk", "?"), exc)
        return ConnectionResult(False, f"Failed: {sentence(str(exc))}")
    answer = " ".join(reply.split())[:80] or "(an empty answer)"
    return ConnectionResult(True, f"Connected: {config.model} at {config.base_url} answered “{answer}”.")


async def _ask(model: OpenAIChatModel) -> str:
    try:
        return (await model.complete("annotation", PING_MESSAGES)).text
    finally:
        await model.aclose()
