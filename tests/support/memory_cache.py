"""An in-process response cache with a time-to-live, for tests that have no database."""

from __future__ import annotations

import time

from agents.llm.cache import CachedResponse


class MemoryCache:
    """An in-process cache with a time-to-live, for tests that have no database."""

    def __init__(self, ttl_seconds: float = 3600.0) -> None:
        self.ttl = ttl_seconds
        self._items: dict[str, tuple[float, CachedResponse]] = {}

    async def get(self, key: str) -> CachedResponse | None:
        item = self._items.get(key)
        if item is None or item[0] < time.monotonic():
            self._items.pop(key, None)
            return None
        return item[1]

    async def put(self, key: str, response: CachedResponse) -> None:
        self._items[key] = (time.monotonic() + self.ttl, response)
