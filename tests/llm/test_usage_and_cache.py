"""Usage and cost figures, configuration from settings and environment, the database response cache."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from django.utils import timezone

from agents.llm.pricing import cost_usd, parse_prices, price_for
from agents.llm.providers import resolve_config, values_from_env
from annotations.llm.client import chat_model_for, server_values
from annotations.models import LLMResponseCache
from tests.support.fake_openai import Reply

MESSAGES = [{"role": "user", "content": "Annotate: a tone."}]


def test_prices_resolve_snapshots_and_router_names():
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini") == (0.15, 0.60)
    assert price_for("openai/gpt-4o") == (2.50, 10.00)
    assert price_for("gpt-4o-mini", {"gpt-4o-mini": (1.0, 2.0)}) == (1.0, 2.0)
    assert price_for("my-local-model") is None
    assert cost_usd("gpt-4o", 1000, 1000) == pytest.approx((1000 * 2.5 + 1000 * 10) / 1e6)
    assert cost_usd("gpt-4o", 1000, 1000, reported=0.5) == 0.5


def test_price_table_from_json_skips_bad_entries():
    assert parse_prices('{"a": [1, 2], "b": "cheap", "c": [3]}') == {"a": (1.0, 2.0)}
    assert parse_prices("not json") == {}


def test_environment_sets_agent_models_prices_and_seed():
    env = {"HEDIT_LLM_BASE_URL": "http://h/v1", "HEDIT_LLM_MODEL": "main", "HEDIT_LLM_MODEL_EVALUATION": "judge",
           "HEDIT_LLM_PRICES": '{"main": [1, 2]}', "HEDIT_LLM_SEED": "none", "HEDIT_LLM_CONSTRAINT": "llama-cpp"}
    config = resolve_config(values_from_env(env))
    assert config.model_for("evaluation") == "judge" and config.model_for("vision") == "main"
    assert config.prices == {"main": (1.0, 2.0)} and config.seed is None
    assert config.constraint == "llama_cpp"


def test_server_values_take_per_agent_models_from_the_environment(settings, monkeypatch):
    settings.HEDIT_LLM = {"BASE_URL": "http://h/v1", "MODEL": "main", "CACHE_TTL": 0}
    monkeypatch.setenv("HEDIT_LLM_MODEL_ASSESSMENT", "thorough")
    monkeypatch.setenv("HEDIT_LLM_PRICES", '{"main": [5, 5]}')
    values = server_values()
    assert values["AGENT_MODELS"] == {"assessment": "thorough"} and values["PRICES"] == '{"main": [5, 5]}'


def test_unknown_constraint_is_refused():
    with pytest.raises(ValueError, match="constraint"):
        resolve_config({"BASE_URL": "http://h/v1", "CONSTRAINT": "regex"})


@pytest.mark.django_db(transaction=True)
def test_identical_requests_are_answered_from_the_database(fake_llm, settings):
    settings.HEDIT_LLM = {"BASE_URL": fake_llm.base_url, "API_KEY": "k", "MODEL": "gpt-4o-mini",
                          "CONSTRAINT": "none", "TIMEOUT": 5, "MAX_RETRIES": 0, "CACHE_TTL": 3600}
    fake_llm.script = [Reply("Sensory-event", prompt_tokens=40, completion_tokens=4)]

    async def twice():
        model = chat_model_for(None)
        return await model.complete("annotation", MESSAGES), await model.complete("annotation", MESSAGES)

    first, second = asyncio.run(twice())
    assert len(fake_llm.chat_requests()) == 1
    assert first.call.cost_usd > 0 and not first.call.cache_hit
    assert second.call.cache_hit and second.call.cost_usd == 0 and second.call.latency_ms == 0
    assert second.text == "Sensory-event" and second.call.model == "gpt-4o-mini"
    row = LLMResponseCache.objects.get()
    assert row.response == "Sensory-event" and row.prompt_tokens == 40

    # Past its time to live the entry is not used; the endpoint answers again.
    LLMResponseCache.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    third, _ = asyncio.run(twice())
    assert not third.call.cache_hit and len(fake_llm.chat_requests()) == 2


@pytest.mark.django_db(transaction=True)
def test_cache_ttl_zero_disables_the_cache(fake_llm, settings):
    settings.HEDIT_LLM = {"BASE_URL": fake_llm.base_url, "MODEL": "m", "CACHE_TTL": 0, "MAX_RETRIES": 0}

    async def twice():
        model = chat_model_for(None)
        await model.complete("annotation", MESSAGES)
        await model.complete("annotation", MESSAGES)

    asyncio.run(twice())
    assert len(fake_llm.chat_requests()) == 2 and not LLMResponseCache.objects.exists()
