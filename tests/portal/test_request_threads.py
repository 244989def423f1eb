"""A page request crosses between the event loop and a thread a few times, not once per middleware.

Under load each crossing waits its turn on a loop that also serves the websockets (see
``hedit_site.handler.OneThreadASGIHandler`` and ``hedit_site.middleware.OneThreadMiddleware``), so their
number is what this guards.
"""

from __future__ import annotations

import pytest
from asgiref import sync
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.core.asgi import get_asgi_application
from django.test import Client

from hedit_site.handler import get_asgi_application as site_asgi_application

pytestmark = pytest.mark.django_db(transaction=True)

# Django's own handler: URL resolution, the request_started/finished signals, the view and the response's close.
MAX_CROSSINGS = 6
# The site's: the request_started signal, the whole request (middleware, URL resolution, view), the response's close.
SITE_CROSSINGS = ["Signal.asend.<locals>.sync_send", "convert_exception_to_response.<locals>.inner",
                  "HttpResponseBase.close"]


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


async def _history_crossings(app, user, crossings: list[str]) -> list[str]:
    cookie = await sync_to_async(_session_cookie)(user)
    crossings.clear()
    headers = [(b"host", b"testserver"), (b"cookie", cookie)]
    communicator = HttpCommunicator(app, "GET", "/sessions/", headers=headers)
    response = await communicator.get_response(timeout=20)
    assert response["status"] == 200
    assert b"per_page=" in response["body"]  # the history page itself (a missing login would redirect)
    await communicator.wait(timeout=20)  # the response's close too
    return list(crossings)


async def test_the_history_page_crosses_to_a_thread_a_few_times(user, crossings) -> None:
    seen = await _history_crossings(get_asgi_application(), user, crossings)
    assert len(seen) <= MAX_CROSSINGS, seen


async def test_the_site_handler_runs_the_whole_request_in_one_crossing(user, crossings) -> None:
    seen = await _history_crossings(site_asgi_application(), user, crossings)
    assert seen == SITE_CROSSINGS


async def test_the_site_handler_answers_errors_and_redirects_as_django_does(user) -> None:
    app = site_asgi_application()
    anonymous = await HttpCommunicator(app, "GET", "/sessions/", headers=[(b"host", b"testserver")]).get_response(
        timeout=20)
    assert anonymous["status"] == 302  # login_required, through the synchronous path
    missing = await HttpCommunicator(app, "GET", "/no-such-page/", headers=[(b"host", b"testserver")]).get_response(
        timeout=20)
    assert missing["status"] == 404
