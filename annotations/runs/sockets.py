"""Websocket plumbing: database reads on the thread pool, and a login lookup that uses it too.

Channels runs every ``database_sync_to_async`` call of every socket on one shared thread, so under
load a socket waited seconds for its login lookup (daphne drops a handshake the app has not accepted
within 5 s). On PostgreSQL these reads go to the thread pool instead (see :func:`off_thread`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from channels.auth import AuthMiddleware, get_user
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.db import connection


def off_thread(func: Callable[..., Any]) -> Any:
    """*func* as a coroutine, with Channels' connection handling around it.

    On PostgreSQL it runs on the thread pool, so sockets read in parallel. SQLite takes one writer at
    a time and every pool thread would hold a connection of its own contending for it (measured:
    seconds of lock waits under load), so there the single shared thread stays.
    """
    return database_sync_to_async(func, thread_sensitive=connection.vendor == "sqlite")


class PooledAuthMiddleware(AuthMiddleware):
    """Channels' ``AuthMiddleware``, looking the user (and session) up on a pool thread."""

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        scope["user"]._wrapped = await off_thread(get_user.func)(scope)


def auth_middleware_stack(inner: Any) -> Any:
    """Drop-in for ``channels.auth.AuthMiddlewareStack``."""
    return CookieMiddleware(SessionMiddleware(PooledAuthMiddleware(inner)))
