"""A finished run records what produced its annotation: the offline annotator or the model that answered."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from annotations.runs.execution import execute_session
from annotations.runs.producer import OFFLINE_PRODUCER
from annotations.runs.services import build_options, create_session
from tests.support.llm import ScriptedLLM

pytestmark = pytest.mark.django_db(transaction=True)


def _session():
    return create_session(user=None, description="A red circle appears.", options=build_options({}))


async def test_offline_run_is_produced_by_the_offline_annotator() -> None:
    session = await sync_to_async(_session)()
    done = await execute_session(session.pk, use_configured_llm=False)
    assert done.machine_annotation and done.producer == OFFLINE_PRODUCER


async def test_model_run_is_produced_by_that_model() -> None:
    session = await sync_to_async(_session)()
    llm = ScriptedLLM({"annotation": ["Sensory-event, Visual-presentation, (Red, Circle)"],
                       "evaluation": ['{"faithful": true}']}, model="tiny-hed-7b")
    done = await execute_session(session.pk, llm=llm)
    assert done.machine_annotation and done.producer == "tiny-hed-7b"
