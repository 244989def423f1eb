"""Finding 11: the websocket origin must match the page's scheme, host and port."""

from __future__ import annotations

import pytest
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.testing import WebsocketCommunicator

from hedit_site.ws_origin import SameOriginValidator, origin_allowed


class Echo(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()


APP = SameOriginValidator(Echo.as_asgi())


async def connects(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws") -> bool:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    communicator = WebsocketCommunicator(APP, "/ws/sessions/x/", headers=headers)
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect(timeout=5)
    await communicator.disconnect()
    return connected


@pytest.mark.parametrize("origin", ["http://127.0.0.1:1", "http://127.0.0.1", "https://127.0.0.1:8000",
                                    "http://evil.example:8000", "null", None])
async def test_other_origins_are_refused(origin):
    assert not await connects(origin)


async def test_the_same_origin_is_accepted():
    assert await connects("http://127.0.0.1:8000")
    assert await connects("https://localhost", host="localhost", scheme="wss")
    assert await connects("http://localhost:80", host="localhost")


async def test_a_host_outside_allowed_hosts_is_refused(settings):
    assert not await connects("http://evil.example:8000", host="evil.example:8000")


async def test_trusted_origins_are_accepted(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://hedit.example.org"]
    assert await connects("https://hedit.example.org", host="127.0.0.1:8000")


@pytest.mark.django_db
def test_the_served_application_uses_it():
    from hedit_site.asgi import application
    from hedit_site.ws_origin import SameOriginValidator

    assert isinstance(application.app.application_mapping["websocket"], SameOriginValidator)
    scope = {"type": "websocket", "scheme": "ws", "headers": [(b"host", b"127.0.0.1:8000"),
                                                              (b"origin", b"http://127.0.0.1:1")]}
    assert not origin_allowed(scope)
