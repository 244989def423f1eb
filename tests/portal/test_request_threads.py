"""A page request crosses between the event loop and a thread a few times, not once per middleware.

Under load each crossing waits its turn on a loop that also serves the websockets (see
``hedit_site.middleware.OneThreadMiddleware``), so their number is what this guards.
"""

from __future__ import annotations

import pytest
from asgiref import sync
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.core.asgi import get_asgi_application
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)

# URL resolution, the request_started/finished signals, the view and the response's close.
MAX_CROSSINGS = 6


@pytest.fixture
def crossings(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = sync.SyncToAsync.__call__

    async def counting(self, *args, **kwargs):
        seen.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counting)
    return seen


def _session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def test_the_history_page_crosses_to_a_thread_a_few_times(user, crossings) -> None:
    cookie = await sync_to_async(_session_cookie)(user)
    app = get_asgi_application()
    crossings.clear()
    headers = [(b"host", b"testserver"), (b"cookie", cookie)]
    response = await HttpCommunicator(app, "GET", "/sessions/", headers=headers).get_response(timeout=20)
    assert response["status"] == 200
    assert b"per_page=" in response["body"]  # the history page itself (a missing login would redirect)
    assert len(crossings) <= MAX_CROSSINGS, crossings
