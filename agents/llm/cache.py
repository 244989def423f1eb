"""The response cache contract: identical requests are answered without calling the model again.

The agents stay free of Django; the database implementation lives in ``annotations.llm_cache``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class CachedResponse:
    model: str
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ResponseCache(Protocol):
    """Anything that stores replies by request key; failures may raise, callers tolerate them."""

    async def get(self, key: str) -> CachedResponse | None: ...

    async def put(self, key: str, response: CachedResponse) -> None: ...


def request_key(endpoint: str, params: dict[str, Any], scope: str = "server") -> str:
    """A stable digest of everything that decides the answer: endpoint, model, messages, parameters,
    and whose cache it is (*scope*: "server", or "user:<id>" so a user's own-key replies serve only them)."""
    blob = json.dumps({"endpoint": endpoint.rstrip("/"), "cache_scope": scope, **params}, sort_keys=True,
                      ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()

