"""The contract between agents and whatever model answers them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from agents.state import LLMCall

Message = dict[str, Any]


class LLMError(RuntimeError):
    """A model could not be reached or refused the request; the message is one line for users.

    ``kind`` names the failure for the per-model figures (:mod:`agents.scoring`): ``error`` (unreachable,
    a server error), ``timeout`` or ``refused``.
    """

    kind = "error"


class LLMTimeout(LLMError):
    """The endpoint was reached but did not answer in time: a smaller request may still be answered."""

    kind = "timeout"


class LLMRefused(LLMError):
    """The endpoint answered with a refusal (HTTP 4xx: the key, the model, the request, a rate limit)."""

    kind = "refused"


@dataclass(frozen=True)
class LLMReply:
    text: str
    call: LLMCall


class ChatModel(Protocol):
    """Anything that answers chat messages for a named agent.

    Implementations pick the model for *agent* (falling back to the annotation
    model), honour *response_format* / *extra_body* where the endpoint can, and
    raise :class:`LLMError` with a one-line reason when they cannot answer.
    """

    async def complete(
        self,
        agent: str,
        messages: list[Message],
        *,
        response_format: dict[str, Any] | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> LLMReply: ...


def constraint_of(llm: object) -> str:
    """The decoding constraint a model is configured for: none, json_schema or llama_cpp."""
    value = getattr(llm, "constraint", "none")
    return value if isinstance(value, str) else "none"


class UnavailableModel:
    """Stands in for a model that cannot be built (say, an undecryptable key): every call fails with why."""

    constraint = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def complete(self, agent: str, messages: list[Message], *,
                       response_format: dict[str, Any] | None = None,
                       extra_body: dict[str, Any] | None = None) -> LLMReply:
        raise LLMError(self.reason)


def render_messages(messages: list[Message]) -> str:
    """Messages as readable text for the call record; image data is summarised, not stored."""
    parts = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            pieces = []
            for item in content:
                if item.get("type") == "image_url":
                    url = str(item.get("image_url", {}).get("url", ""))
                    pieces.append(f"<image {url[:url.find(',')] if url.startswith('data:') else url[:80]}, "
                                  f"{len(url)} chars>")
                else:
                    pieces.append(str(item.get("text", "")))
            content = "\n".join(pieces)
        parts.append(f"[{m.get('role')}] {content}")
    return "\n\n".join(parts)
