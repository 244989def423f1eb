"""The database-backed LLM response cache (``agents.llm.cache.ResponseCache``)."""

from __future__ import annotations

from datetime import timedelta

from asgiref.sync import sync_to_async
from django.utils import timezone

from agents.llm.cache import CachedResponse
from annotations.models import LLMResponseCache


class DatabaseResponseCache:
    """Replies stored in ``LLMResponseCache`` for *ttl_seconds*; expired rows are purged on write."""

    def __init__(self, ttl_seconds: int) -> None:
        self.ttl = timedelta(seconds=ttl_seconds)

    def _get(self, key: str) -> CachedResponse | None:
        row = LLMResponseCache.objects.filter(key=key, expires_at__gt=timezone.now()).first()
        if row is None:
            return None
        return CachedResponse(model=row.model, text=row.response, prompt_tokens=row.prompt_tokens,
                              completion_tokens=row.completion_tokens)

    def _put(self, key: str, response: CachedResponse) -> None:
        now = timezone.now()
        LLMResponseCache.objects.filter(expires_at__lte=now).delete()
        LLMResponseCache.objects.update_or_create(
            key=key, defaults={"model": response.model[:255], "response": response.text,
                               "prompt_tokens": response.prompt_tokens,
                               "completion_tokens": response.completion_tokens, "expires_at": now + self.ttl})

    async def get(self, key: str) -> CachedResponse | None:
        return await sync_to_async(self._get)(key)

    async def put(self, key: str, response: CachedResponse) -> None:
        await sync_to_async(self._put)(key, response)
