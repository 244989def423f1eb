"""The shared Redis cache (scale-out sessions) with one connection pool per process, not one per request."""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_pools: dict[tuple[Any, ...], Any] = {}
_pools_lock = threading.Lock()


class _SharedPoolClient(RedisCacheClient):
    """Django's Redis client, taking its connection pool from the process instead of making its own.

    Django keeps a cache object per asyncio context, and under ASGI every request is a context of its
    own: each page made a new pool, so each session read opened a new connection to Redis (connect,
    ``CLIENT SETINFO`` twice, ``SELECT``, then the ``GET``: five round trips where one is needed, each
    waiting for the interpreter lock on the way back under socket load; issue 40). redis-py's pool is
    thread-safe and starts afresh in a forked child.
    """

    def _get_connection_pool(self, write: bool) -> Any:
        index = self._get_connection_pool_index(write)
        options = tuple(sorted((name, repr(value)) for name, value in self._pool_options.items()))
        key = (self._pool_class, self._servers[index], options)
        pool = _pools.get(key)
        if pool is None:
            with _pools_lock:
                pool = _pools.get(key)
                if pool is None:
                    pool = _pools[key] = self._pool_class.from_url(self._servers[index], **self._pool_options)
        return pool


class SharedPoolRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` whose connections outlive the request (see above)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _SharedPoolClient
