"""The project page's websocket: counts and moved levels arrive without a reload; strangers are refused."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from annotations.datasets import services
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from annotations.routing import websocket_urlpatterns
from annotations.runs.broadcasts import broadcast

pytestmark = pytest.mark.django_db(transaction=True)


def _communicator(project, user):
    app = URLRouter(websocket_urlpatterns)
    communicator = WebsocketCommunicator(app, f"/ws/datasets/{project.pk}/")
    communicator.scope["user"] = user
    communicator.scope["cookies"] = {"csrftoken": "c" * 32}
    return communicator


async def test_progress_is_pushed_as_fragments(user, small_files):
    project = await sync_to_async(services.import_dataset)(user=user, files=small_files, name="tiny")
    communicator = _communicator(project, user)
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_from(timeout=5)
    assert 'id="dataset-counts"' in first and 'data-done="0"' in first

    level = await DatasetLevel.objects.aget(value="press")
    session = (await sync_to_async(services.create_level_sessions)(project, [level], user=user))[0]
    await AnnotationSession.objects.filter(pk=session.pk).aupdate(
        status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation="Agent-action, Participant-response")
    await broadcast(session.pk, "status")  # what a run does as it starts and ends
    pushed = await communicator.receive_from(timeout=5)
    assert 'data-done="1"' in pushed and f'id="level-{level.pk}"' in pushed and 'data-status="valid"' in pushed
    assert "c" * 32 in pushed  # the row's forms keep working after the swap
    await communicator.disconnect()


async def test_strangers_and_anonymous_are_refused(user, other_user, small_files):
    from django.contrib.auth.models import AnonymousUser

    project = await sync_to_async(services.import_dataset)(user=user, files=small_files, name="tiny")
    for who, code in [(other_user, 4403), (AnonymousUser(), 4401)]:
        communicator = _communicator(project, who)
        await communicator.connect()
        assert (await communicator.receive_output(timeout=5))["code"] == code


async def test_the_job_ending_is_pushed(user, small_files):
    from annotations.runs.broadcasts import broadcast_progress

    project = await sync_to_async(services.import_dataset)(user=user, files=small_files, name="tiny")
    communicator = _communicator(project, user)
    await communicator.connect()
    await communicator.receive_from(timeout=5)
    await broadcast_progress(project.pk)
    assert 'id="dataset-counts"' in await communicator.receive_from(timeout=5)
    await communicator.disconnect()
