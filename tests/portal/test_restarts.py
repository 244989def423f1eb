"""A run started again after its worker or the server stopped says so where its later start begins, on the
page and over the socket, instead of showing the same agents again without a word."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async

from annotations.models import AgentStepRecord
from tests.portal.test_consumers import connect, cookie_for
from tests.support.runs import add_steps, make_session

pytestmark = pytest.mark.django_db(transaction=True)

NOTE = re.compile(r'class="step__restart"[^>]*>\s*Started again \(start 2\)')


def restarted_session(user):
    """Three steps of a first start that was cut off, then a second start's two steps."""
    session = make_session(user, status="succeeded", attempt=2, final_annotation="Sensory-event, (Red, Circle)")
    add_steps(session, 5)
    AgentStepRecord.objects.filter(session=session, seq__gte=4).update(attempt=2)
    return session


def notes_by_step(html: str) -> list[str]:
    return [seq for seq, body in re.findall(r'data-step-seq="(\d+)"(.*?)</li>', html, re.S) if NOTE.search(body)]


def test_the_page_marks_where_a_later_start_begins(client, user) -> None:
    session = restarted_session(user)
    client.force_login(user)
    html = client.get(f"/sessions/{session.pk}/").content.decode()
    assert notes_by_step(html) == ["4"]


def test_a_run_that_never_stopped_has_no_note(client, user) -> None:
    session = make_session(user, status="succeeded", attempt=1)
    add_steps(session, 5)
    client.force_login(user)
    assert "step__restart" not in client.get(f"/sessions/{session.pk}/").content.decode()


async def test_the_socket_marks_it_too_even_when_the_page_had_the_steps_before(user) -> None:
    session = await sync_to_async(restarted_session)(user)
    cookie = await sync_to_async(cookie_for)(user)
    for after, expected in ((0, ["4"]), (3, ["4"]), (4, [])):
        communicator = await connect(session.pk, cookie, after=after)
        notes: list[str] = []
        while True:
            message = await communicator.receive_from(timeout=10)
            notes += notes_by_step(message)
            if 'id="final-annotation"' in message:
                break
        assert notes == expected, after
        await communicator.disconnect()
