"""Embedded mode: a run on a pool thread (its own event loop) still wakes live pages on the server's loop.

Runs a restart resumes start before the server's loop exists, so they run on the task backend's threads;
the in-memory channel layer is not thread-safe, and a message put on its queue from another loop sat
there until something else woke the server's loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from channels.layers import get_channel_layer

from annotations.runs import runtime
from annotations.runs.broadcasts import broadcast, session_group


@pytest.fixture
def server_loop(settings) -> Iterator[asyncio.AbstractEventLoop]:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="server-loop", daemon=True)
    thread.start()
    runtime.register_server_loop(loop)
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()
        runtime.forget_server_loop()  # closed: the next server's loop registers itself


def test_a_broadcast_from_another_thread_reaches_a_socket_on_the_server_loop(server_loop) -> None:
    layer = get_channel_layer()

    async def listen() -> str:
        channel = await layer.new_channel()
        await layer.group_add(session_group("s1"), channel)
        return channel

    channel = asyncio.run_coroutine_threadsafe(listen(), server_loop).result(timeout=5)
    received = asyncio.run_coroutine_threadsafe(layer.receive(channel), server_loop)

    asyncio.run(broadcast("s1", "step"))  # this thread's own loop, as a pool thread's run has

    # The bound only limits a failing run; a working broadcast wakes the server's loop at once.
    assert received.result(timeout=10)["kind"] == "step"
