"""Each failed call says what kind of failure it was (the evaluation table counts them): a timeout, a refusal
(HTTP 4xx: the key, the model, a rate limit once retries are spent), or an error (unreachable, 5xx)."""

from __future__ import annotations

import pytest

from agents.llm.base import LLMError
from tests.support.fake_openai import FakeOpenAI, Reply, closed_port_url

MESSAGES = [{"role": "user", "content": "Annotate: a red circle."}]


async def _kind(model) -> str:
    with pytest.raises(LLMError) as caught:
        await model.complete("annotation", MESSAGES)
    return caught.value.kind


@pytest.mark.parametrize(("reply", "kind"), [
    (Reply(hang=True), "timeout"),
    (Reply("no such model", status=404), "refused"),
    (Reply("bad request", status=400), "refused"),
    (Reply("slow down", status=429, headers={"Retry-After": "0"}), "refused"),
    (Reply("boom", status=500), "error"),
])
async def test_the_kind_of_each_failure(fake_llm, make_model, reply, kind):
    fake_llm.script = [reply]
    assert await _kind(make_model(fake_llm.base_url, timeout=0.3, max_retries=1)) == kind


async def test_a_refused_key_and_an_unreachable_endpoint(make_model):
    with FakeOpenAI(required_key="right") as server:
        assert await _kind(make_model(server.base_url, api_key="wrong")) == "refused"
    assert await _kind(make_model(closed_port_url(), max_retries=0)) == "error"


async def test_the_workflow_records_the_kind_of_a_failed_call(scripted_llm):
    from agents.llm.base import LLMTimeout
    from agents.workflow import run_workflow

    seen = []

    class Observer:
        async def on_step(self, step, state):
            return None

        async def on_llm_call(self, call, iteration):
            seen.append((call.error_kind, call.error))

    state = await run_workflow("A red circle appears.", llm=scripted_llm([LLMTimeout("too slow")]), observer=Observer())
    assert state.status == "failed" and seen == [("timeout", "too slow")]
