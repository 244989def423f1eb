"""The live session socket, through the same middleware stack daphne serves."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client

from annotations.models import AgentStepRecord, AnnotationSession
from annotations.routing import websocket_urlpatterns
from annotations.runs.execution import execute_session
from annotations.runs.services import build_options, create_session
from annotations.runs.sockets import auth_middleware_stack

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10
DESCRIPTION = "A red circle appears on the left of the screen and the participant presses a button."
application = auth_middleware_stack(URLRouter(websocket_urlpatterns))


def cookie_for(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}; csrftoken=test-csrf-token".encode()


@pytest.fixture
def user_cookie(user) -> bytes:
    return cookie_for(user)


def new_session(owner) -> AnnotationSession:
    return create_session(user=owner, description=DESCRIPTION, options=build_options({"run_assessment": True}))


async def connect(session_id, cookie: bytes | None, after: int | None = None) -> WebsocketCommunicator:
    path = f"/ws/sessions/{session_id}/" + (f"?after={after}" if after is not None else "")
    headers = [(b"cookie", cookie)] if cookie else []
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def receive_until_final(communicator: WebsocketCommunicator,
                              usage: list[str] | None = None) -> tuple[list[int], str]:
    """Every step number received, in order, until a finished status arrives."""
    seqs: list[int] = []
    while True:
        message = await communicator.receive_from(timeout=TIMEOUT)
        if match := re.search(r'data-step-seq="(\d+)"', message):
            assert 'hx-swap-oob="beforeend:#progress"' in message
            seqs.append(int(match.group(1)))
            continue
        if 'id="final-annotation"' not in message:
            assert '<dl id="usage" class="usage" hx-swap-oob="true">' in message
            if usage is not None:
                usage.append(message)
            continue
        status = re.search(r'id="final-annotation"[^>]*data-status="(\w+)"', message)
        assert status and 'hx-swap-oob="true"' in message
        if status.group(1) not in {"queued", "running"}:
            return seqs, message


async def test_login_required() -> None:
    session = await sync_to_async(new_session)(None)
    communicator = await connect(session.pk, None)
    assert await communicator.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4401}


async def test_a_login_from_before_a_password_change_is_refused(user) -> None:
    session = await sync_to_async(new_session)(user)
    cookie = await sync_to_async(cookie_for)(user)
    user.set_password("a-new-password-9876")
    await sync_to_async(user.save)()
    communicator = await connect(session.pk, cookie)
    assert await communicator.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4401}


async def test_the_handshake_does_not_wait_for_the_login_lookup(user, user_cookie, monkeypatch) -> None:
    """The user is read on the replay's database thread: a slow lookup delays the replay, not the accept."""
    import threading

    from channels import auth

    session = await sync_to_async(new_session)(user)
    release = threading.Event()
    real_get_user = auth.get_user.func

    def slow_get_user(scope):
        assert release.wait(TIMEOUT), "the handshake was not accepted while the lookup waited"
        return real_get_user(scope)

    monkeypatch.setattr(auth.get_user, "func", slow_get_user)
    communicator = await connect(session.pk, user_cookie)  # asserts the handshake was accepted
    release.set()
    assert 'data-status="queued"' in await communicator.receive_from(timeout=TIMEOUT)
    await communicator.disconnect()


async def test_messages_reach_the_consumer_without_a_trip_to_the_shared_database_thread(
        user, user_cookie, monkeypatch) -> None:
    """Channels closes stale connections on its one database thread before every message; the reads do it."""
    from channels import consumer

    trips: list[str] = []

    async def counted() -> None:
        trips.append("close_old_connections")

    monkeypatch.setattr(consumer, "aclose_old_connections", counted)
    session = await sync_to_async(new_session)(user)
    communicator = await connect(session.pk, user_cookie)
    assert 'data-status="queued"' in await communicator.receive_from(timeout=TIMEOUT)
    await execute_session(session.pk)  # a whole run's broadcasts arrive
    await receive_until_final(communicator)
    await communicator.disconnect()
    assert trips == []


async def test_users_cannot_follow_each_others_sessions(user, other_user) -> None:
    session = await sync_to_async(new_session)(user)
    communicator = await connect(session.pk, await sync_to_async(cookie_for)(other_user))
    assert await communicator.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4403}
    missing = await connect("00000000-0000-0000-0000-000000000000", await sync_to_async(cookie_for)(user))
    assert await missing.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4403}


async def test_reviewer_follows_anyone(user, reviewer) -> None:
    session = await sync_to_async(new_session)(user)
    communicator = await connect(session.pk, await sync_to_async(cookie_for)(reviewer))
    message = await communicator.receive_from(timeout=TIMEOUT)
    assert 'data-status="queued"' in message
    await communicator.disconnect()


async def test_replay_on_connect_sends_only_later_steps(user, user_cookie) -> None:
    session = await sync_to_async(new_session)(user)
    done = await execute_session(session.pk, use_configured_llm=False)
    assert done.status == "succeeded"
    total = await AgentStepRecord.objects.filter(session=session).acount()
    assert total >= 3

    everything = await connect(session.pk, user_cookie, after=0)
    seqs, final = await receive_until_final(everything)
    assert seqs == list(range(1, total + 1))
    assert 'data-status="succeeded"' in final and done.final_annotation.split(",")[0] in final
    assert 'name="csrfmiddlewaretoken" value="test-csrf-token"' in final  # the re-run form posts
    assert await everything.receive_nothing(timeout=0.2)
    await everything.disconnect()

    later = await connect(session.pk, user_cookie, after=2)
    seqs, _ = await receive_until_final(later)
    assert seqs == list(range(3, total + 1))
    await later.disconnect()


async def test_two_clients_both_receive_every_step_live(user, user_cookie, reviewer) -> None:
    session = await sync_to_async(new_session)(user)
    first = await connect(session.pk, user_cookie, after=0)
    second = await connect(session.pk, await sync_to_async(cookie_for)(reviewer), after=0)
    for communicator in (first, second):  # the state on connect: queued, nothing stored yet
        assert 'data-status="queued"' in await communicator.receive_from(timeout=TIMEOUT)

    done = await execute_session(session.pk, use_configured_llm=False)
    total = await AgentStepRecord.objects.filter(session=session).acount()
    assert done.status == "succeeded" and total >= 3
    for communicator in (first, second):
        usage: list[str] = []
        seqs, final = await receive_until_final(communicator, usage)
        assert seqs == list(range(1, total + 1))  # in order, no duplicates, no gaps
        assert 'data-status="succeeded"' in final
        # The attempt count moves with the steps, before the run ends.
        assert any(re.search(r"<dt>Attempts</dt><dd>1</dd>", u) for u in usage)
        await communicator.disconnect()


async def test_status_event_after_cancel_of_a_queued_run(user, user_cookie) -> None:
    from annotations.runs.broadcasts import broadcast
    from annotations.runs.services import request_cancel

    session = await sync_to_async(new_session)(user)
    communicator = await connect(session.pk, user_cookie)
    assert 'data-status="queued"' in await communicator.receive_from(timeout=TIMEOUT)
    await sync_to_async(request_cancel)(session)
    await broadcast(session.pk, "status")
    assert 'data-status="cancelled"' in await communicator.receive_from(timeout=TIMEOUT)
    await communicator.disconnect()


@pytest.mark.parametrize("after", ["%C2%B2", "12345678901234567890123", "-3", "x"])
async def test_a_bad_after_replays_from_the_start(user, user_cookie, after) -> None:
    # "²" passes str.isdigit() but not int(), and a huge number overflows the database integer:
    # either used to crash the consumer instead of replaying everything.
    from annotations.runs.consumers import after_seq

    assert after_seq(f"after={after}".encode()) == 0
    session = await sync_to_async(new_session)(user)
    communicator = WebsocketCommunicator(application, f"/ws/sessions/{session.pk}/?after={after}",
                                         headers=[(b"cookie", user_cookie)])
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    assert 'data-status="queued"' in await communicator.receive_from(timeout=TIMEOUT)
    await communicator.disconnect()
