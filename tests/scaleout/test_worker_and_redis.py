"""Scale-out: a run queued in the database, executed by a separate `db_worker` process,
streams its steps through Redis to this process; both over real connections."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.test import override_settings

from annotations.models import AgentStepRecord, AnnotationSession
from annotations.runs.broadcasts import session_group
from annotations.runs.services import build_options, create_session, start_session
from tests.support.db import shared_database_url

pytestmark = [pytest.mark.scaleout, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("HEDIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_prefix() -> str:
    # A prefix per test keeps parallel runs on the shared Redis apart.
    return f"hedit-test-{uuid.uuid4().hex[:8]}"


async def test_database_queue_worker_streams_steps_over_redis(redis_prefix: str) -> None:
    layers = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                          "CONFIG": {"hosts": [REDIS_URL], "prefix": redis_prefix}}}
    tasks = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    with override_settings(CHANNEL_LAYERS=layers, TASKS=tasks):
        from channels.layers import channel_layers

        channel_layers.backends.clear()  # django-tasks resets its backends on setting_changed itself
        layer = get_channel_layer()
        session = await sync_to_async(create_session)(
            user=None, description="A green triangle appears above fixation.", options=build_options({}))
        channel = await layer.new_channel()
        await layer.group_add(session_group(session.pk), channel)
        await sync_to_async(start_session)(session)
        stored = await AnnotationSession.objects.aget(pk=session.pk)
        assert stored.status == "queued"  # queued, not run here: no worker in this process

        env = {**os.environ, "DATABASE_URL": shared_database_url(), "REDIS_URL": REDIS_URL,
               "HEDIT_CHANNEL_PREFIX": redis_prefix, "HEDIT_TASK_BACKEND": "database",
               "DJANGO_SETTINGS_MODULE": "hedit_site.settings"}
        env.pop("HEDIT_TEST_SQLITE", None)
        worker = await asyncio.create_subprocess_exec(
            sys.executable, "manage.py", "db_worker", "--batch", "--max-tasks", "1", "--no-startup-delay",
            "--no-reload", cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        kinds: list[str] = []
        try:
            while kinds.count("status") < 2:  # "running", then the final status
                message = await asyncio.wait_for(layer.receive(channel), timeout=120)
                kinds.append(message["kind"])
        except Exception as exc:
            worker.kill()
            output, _ = await worker.communicate()
            pytest.fail(f"no broadcast from the worker ({exc!r}); it said:\n{output.decode(errors='replace')[-3000:]}")
        output, _ = await asyncio.wait_for(worker.communicate(), timeout=120)
        assert worker.returncode == 0, output.decode(errors="replace")[-2000:]
        channel_layers.backends.clear()

    done = await AnnotationSession.objects.aget(pk=session.pk)
    assert done.status == "succeeded" and done.is_valid
    steps = await AgentStepRecord.objects.filter(session=done).acount()
    assert steps >= 3
    assert kinds.count("step") == steps  # every stored step was announced through Redis
