"""A scripted stand-in for a chat model, for tests of agents and the workflow."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents.llm.base import LLMError, LLMReply, Message
from agents.state import LLMCall

Reply = str | Callable[[str, list[Message]], str] | Exception


class ScriptedLLM:
    """Answers each call with the next scripted reply (per agent if a dict is given).

    A reply may be a string, a function of (agent, messages), or an exception to raise.
    The last reply repeats once the script runs out.
    """

    def __init__(self, script: Sequence[Reply] | dict[str, Sequence[Reply]], model: str = "scripted") -> None:
        self.script = script
        self.model = model
        self.requests: list[tuple[str, list[Message], dict[str, Any]]] = []
        self._counts: dict[str, int] = {}

    def _next(self, agent: str) -> Reply:
        replies = self.script.get(agent, ["{}"]) if isinstance(self.script, dict) else self.script
        n = self._counts.get(agent if isinstance(self.script, dict) else "*", 0)
        self._counts[agent if isinstance(self.script, dict) else "*"] = n + 1
        return replies[min(n, len(replies) - 1)]

    def calls_for(self, agent: str) -> list[list[Message]]:
        return [messages for a, messages, _ in self.requests if a == agent]

    async def complete(self, agent: str, messages: list[Message], *,
                       response_format: dict[str, Any] | None = None,
                       extra_body: dict[str, Any] | None = None) -> LLMReply:
        self.requests.append((agent, messages, {"response_format": response_format, "extra_body": extra_body}))
        reply = self._next(agent)
        if isinstance(reply, Exception):
            raise reply
        text = reply(agent, messages) if callable(reply) else reply
        prompt = sum(len(str(m.get("content", ""))) for m in messages) // 4
        call = LLMCall(agent=agent, model=self.model, request=str(messages), response=text,
                       prompt_tokens=prompt, completion_tokens=len(text) // 4 + 1, cost_usd=0.0001,
                       latency_ms=1.0)
        return LLMReply(text=text, call=call)


__all__ = ["LLMError", "ScriptedLLM"]
