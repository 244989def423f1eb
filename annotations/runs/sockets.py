"""Websocket plumbing: what a socket costs the server before and after its own database read.

A socket's database work (the login, the permission check, the replay, each refresh) runs in
``database_sync_to_async``: on Channels' one shared database thread, so sockets take turns there
and leave the rest of the process (the event loop, and the threads serving pages) to the pages.
Giving sockets a pool of threads instead was measured to make every page wait: each extra thread
busy with sockets takes its share of the interpreter lock from the event loop and the pages
(``benchmarks/load.py``, scale-out: history p95 650-770 ms with a pool, 360-450 ms with one thread).

Two trips Channels makes on that thread for every socket are skipped, because under load each
waits behind every other socket's reads and made the handshake wait with them:

* ``AuthMiddleware`` looks the user up before the handshake may complete;
  :class:`DeferredAuthMiddleware` reads it on first use instead, inside the consumer's own read;
* a consumer closes stale database connections before every message it handles;
  :class:`ThreadedReadsConsumer` leaves that to ``database_sync_to_async``, which does it around
  each call anyway.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from channels.auth import get_user
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.utils.functional import SimpleLazyObject


class ThreadedReadsConsumer(AsyncWebsocketConsumer):
    """An async consumer whose database work all runs in ``database_sync_to_async`` calls."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels' dispatch, without its close_old_connections trip (see the module's docstring).
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class DeferredAuthMiddleware(BaseMiddleware):
    """``scope["user"]``, looked up from the session when first used.

    Using it reads the database, so a consumer may touch it only inside ``database_sync_to_async``
    (Django refuses a query on the event loop with ``SynchronousOnlyOperation``: a slip fails loudly).
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        scope = dict(scope)
        scope["user"] = SimpleLazyObject(partial(get_user.func, scope))
        return await super().__call__(scope, receive, send)


def auth_middleware_stack(inner: Any) -> Any:
    """Drop-in for ``channels.auth.AuthMiddlewareStack``, with the user read on first use."""
    return CookieMiddleware(SessionMiddleware(DeferredAuthMiddleware(inner)))
