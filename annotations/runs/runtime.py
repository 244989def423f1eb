"""Where in-process runs execute: the server's event loop when there is one."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

_server_loop: asyncio.AbstractEventLoop | None = None


def register_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Remember the ASGI server's loop so background runs share it with the websocket consumers.

    The in-memory channel layer is not thread-safe: a run that broadcasts from
    another thread's loop would wake consumers late or never.
    """
    global _server_loop
    if _server_loop is not loop:
        logger.debug("background runs will use the server event loop")
        _server_loop = loop


def forget_server_loop() -> None:
    """Forget the server's loop (its server stopped): runs use loops of their own until a server registers
    another. For tests, which run several servers' loops in one process."""
    global _server_loop
    _server_loop = None


def server_loop() -> asyncio.AbstractEventLoop | None:
    loop = _server_loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


async def on_server_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await *coroutine* on the server's loop, wherever the caller runs.

    A run on a task thread (the runs a restart resumes start before the server's loop exists) has a loop
    of its own; a message it put on the in-memory channel layer's queues from there would not wake the
    server's loop, and a live page would see it only when something else did.
    """
    loop = server_loop()
    if loop is None or loop is asyncio.get_running_loop():
        return await coroutine
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))


class LoopCapturingApp:
    """ASGI wrapper that records the running loop on the first connection."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.app = app

    async def __call__(self, scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if _server_loop is None:
            register_server_loop(asyncio.get_running_loop())
        await self.app(scope, receive, send)
