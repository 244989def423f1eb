"""The OpenAI-compatible client over real HTTP: parameters, retries, failures, usage, cost, cache."""

from __future__ import annotations

import pytest

from agents.llm.base import LLMError
from tests.support.fake_openai import FakeOpenAI, Reply, closed_port_url
from tests.support.memory_cache import MemoryCache

MESSAGES = [{"role": "system", "content": "Rules."}, {"role": "user", "content": "Annotate: a red circle."}]


async def test_request_carries_key_model_and_fixed_sampling(fake_llm, make_model):
    fake_llm.script = [Reply("Sensory-event, Red", prompt_tokens=120, completion_tokens=7)]
    model = make_model(fake_llm.base_url, api_key="sk-test-123", model="gpt-4o-mini", seed=7)

    reply = await model.complete("annotation", MESSAGES)

    sent = fake_llm.chat_requests()[0]
    assert sent.headers["authorization"] == "Bearer sk-test-123"
    assert sent.body["model"] == "gpt-4o-mini"
    assert sent.body["temperature"] == 0
    assert sent.body["seed"] == 7
    assert sent.body["messages"] == MESSAGES
    assert reply.text == "Sensory-event, Red"
    call = reply.call
    assert (call.agent, call.prompt_tokens, call.completion_tokens) == ("annotation", 120, 7)
    assert call.cost_usd == pytest.approx((120 * 0.15 + 7 * 0.60) / 1_000_000)
    assert call.latency_ms > 0 and not call.cache_hit
    assert "Annotate: a red circle." in call.request


async def test_each_agent_uses_its_model_else_the_annotation_model(fake_llm, make_model):
    model = make_model(fake_llm.base_url, model="main", agent_models={"evaluation": "judge"})
    await model.complete("evaluation", MESSAGES)
    await model.complete("feedback", MESSAGES)
    assert [r.body["model"] for r in fake_llm.chat_requests()] == ["judge", "main"]


async def test_cost_from_configured_prices_and_reported_cost(fake_llm, make_model):
    fake_llm.script = [Reply("x", prompt_tokens=1_000_000, completion_tokens=500_000),
                       Reply("x", prompt_tokens=10, completion_tokens=10, cost=0.0123)]
    model = make_model(fake_llm.base_url, model="house-model", prices={"house-model": (2.0, 4.0)})
    priced = await model.complete("annotation", MESSAGES)
    reported = await model.complete("annotation", MESSAGES[:1])
    assert priced.call.cost_usd == pytest.approx(2.0 + 2.0)
    assert reported.call.cost_usd == pytest.approx(0.0123)


async def test_router_choice_is_priced_unless_the_provider_reports_a_cost(fake_llm, make_model):
    fake_llm.script = [Reply("x", prompt_tokens=1_000_000, completion_tokens=0, model="priced-model"),
                       Reply("x", prompt_tokens=1_000_000, completion_tokens=0, model="priced-model", cost=0.0)]
    model = make_model(fake_llm.base_url, model="router/auto", prices={"priced-model": (3.0, 9.0)})
    routed = await model.complete("annotation", MESSAGES)
    free = await model.complete("annotation", MESSAGES[:1])
    assert routed.call.model == "priced-model" and routed.call.cost_usd == pytest.approx(3.0)
    assert free.call.cost_usd == 0.0  # the provider said it was free


async def test_unknown_model_costs_nothing(fake_llm, make_model):
    reply = await make_model(fake_llm.base_url, model="local-gguf").complete("annotation", MESSAGES)
    assert reply.call.cost_usd == 0.0 and reply.call.prompt_tokens > 0


@pytest.mark.parametrize("failure", [
    Reply("boom", status=500),
    Reply("slow down", status=429, headers={"Retry-After": "0"}),
    Reply("unavailable", status=503),
    Reply(drop=True),
], ids=["500", "429", "503", "dropped-connection"])
async def test_transient_failures_are_retried(fake_llm, make_model, failure):
    fake_llm.script = [failure, "Sensory-event"]
    reply = await make_model(fake_llm.base_url).complete("annotation", MESSAGES)
    assert reply.text == "Sensory-event"
    assert len(fake_llm.chat_requests()) == 2


async def test_retries_stop_at_the_cap_with_one_line(fake_llm, make_model):
    fake_llm.script = [Reply("boom", status=500)]
    with pytest.raises(LLMError) as err:
        await make_model(fake_llm.base_url, max_retries=2).complete("annotation", MESSAGES)
    assert len(fake_llm.chat_requests()) == 3
    message = str(err.value)
    assert "HTTP 500" in message and "after 2 retries" in message and "\n" not in message


async def test_rate_limit_that_persists_is_reported(fake_llm, make_model):
    fake_llm.script = [Reply("slow down", status=429, headers={"Retry-After": "0"})]
    with pytest.raises(LLMError, match="rate limiting"):
        await make_model(fake_llm.base_url, max_retries=1).complete("annotation", MESSAGES)
    assert len(fake_llm.chat_requests()) == 2


async def test_timeout_is_one_line_and_not_retried(fake_llm, make_model):
    fake_llm.script = [Reply(hang=True)]
    with pytest.raises(LLMError) as err:
        await make_model(fake_llm.base_url, timeout=0.3).complete("annotation", MESSAGES)
    assert str(err.value) == f"the LLM endpoint {fake_llm.base_url} did not answer within 0.3 s"
    assert len(fake_llm.chat_requests()) == 1


async def test_refused_key_is_one_line_without_the_key(make_model):
    with FakeOpenAI(required_key="the-right-key") as server:
        with pytest.raises(LLMError) as err:
            await make_model(server.base_url, api_key="sk-wrong-secret").complete("annotation", MESSAGES)
        assert len(server.chat_requests()) == 1  # a refused key is not retried
    message = str(err.value)
    assert "refused the API key (HTTP 401)" in message
    assert "sk-wrong-secret" not in message and "\n" not in message


async def test_unreachable_endpoint_is_one_line(make_model):
    url = closed_port_url()
    with pytest.raises(LLMError) as err:
        await make_model(url, max_retries=1).complete("annotation", MESSAGES)
    assert str(err.value).startswith(f"cannot reach the LLM endpoint {url} after 1 retry")
    assert "\n" not in str(err.value)


async def test_other_http_errors_are_not_retried(fake_llm, make_model):
    fake_llm.script = [Reply("The model `m` does not exist", status=404)]
    with pytest.raises(LLMError, match="HTTP 404: The model `m` does not exist"):
        await make_model(fake_llm.base_url).complete("annotation", MESSAGES)
    assert len(fake_llm.chat_requests()) == 1


async def test_a_refused_sampling_parameter_is_dropped(fake_llm, make_model):
    refusal = Reply("Unsupported value: 'temperature' does not support 0 with this model.", status=400,
                    error={"message": "Unsupported value: 'temperature' does not support 0 with this model.",
                           "type": "invalid_request_error", "param": "temperature",
                           "code": "unsupported_value"})
    fake_llm.script = [refusal, "Sensory-event"]
    model = make_model(fake_llm.base_url)
    assert (await model.complete("annotation", MESSAGES)).text == "Sensory-event"
    await model.complete("annotation", MESSAGES[:1])
    first, second, third = fake_llm.chat_requests()
    assert "temperature" in first.body and "temperature" not in second.body and "temperature" not in third.body


async def test_no_model_configured_is_an_llm_error(fake_llm, make_model):
    with pytest.raises(LLMError, match="no LLM model is configured"):
        await make_model(fake_llm.base_url, model="").complete("annotation", MESSAGES)
    assert fake_llm.chat_requests() == []


async def test_identical_requests_are_answered_from_the_cache(fake_llm, make_model):
    fake_llm.script = [Reply("Sensory-event", prompt_tokens=50, completion_tokens=3)]
    model = make_model(fake_llm.base_url, model="gpt-4o-mini", cache=MemoryCache())
    first = await model.complete("annotation", MESSAGES)
    second = await model.complete("annotation", MESSAGES)
    other = await model.complete("annotation", MESSAGES, response_format={"type": "json_object"})

    assert len(fake_llm.chat_requests()) == 2  # the repeat never reached the endpoint
    assert not first.call.cache_hit and first.call.cost_usd > 0
    assert second.text == "Sensory-event"
    assert second.call.cache_hit and second.call.cost_usd == 0 and second.call.latency_ms == 0
    assert (second.call.prompt_tokens, second.call.completion_tokens) == (50, 3)
    assert not other.call.cache_hit


async def test_response_format_and_extra_body_reach_the_endpoint(fake_llm, make_model):
    model = make_model(fake_llm.base_url, extra_body={"usage": {"include": True}})
    await model.complete("annotation", MESSAGES, response_format={"type": "json_object"},
                         extra_body={"grammar": "root ::= \"x\""})
    body = fake_llm.chat_requests()[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert body["grammar"] == 'root ::= "x"' and body["usage"] == {"include": True}
