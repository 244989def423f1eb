"""Finding 10: cached replies are keyed by endpoint, model and request, and a user's own-key replies
serve only that user."""

from __future__ import annotations

import asyncio

from agents.llm.cache import request_key
from agents.llm.openai_model import OpenAIChatModel
from agents.llm.providers import ProviderConfig
from tests.support.memory_cache import MemoryCache

MESSAGES = [{"role": "user", "content": "A red circle."}]


def model(base_url: str, cache: MemoryCache, *, scope: str, key: str, name: str = "m") -> OpenAIChatModel:
    return OpenAIChatModel(ProviderConfig(base_url=base_url, api_key=key, model=name, max_retries=0,
                                          cache_scope=scope), cache=cache)


def run(chat: OpenAIChatModel):
    async def go():
        try:
            return await chat.complete("annotation", MESSAGES)
        finally:
            await chat.aclose()

    return asyncio.run(go())


def test_a_server_key_reply_is_not_served_to_a_users_own_key(fake_llm):
    cache = MemoryCache()
    fake_llm.script = ["from the server key", "from the user's key"]
    first = run(model(fake_llm.base_url, cache, scope="server", key="server-key"))
    second = run(model(fake_llm.base_url, cache, scope="user:7", key="user-key"))
    assert (first.text, second.text) == ("from the server key", "from the user's key")
    assert not second.call.cache_hit and len(fake_llm.chat_requests()) == 2


def test_a_users_replies_serve_only_that_user(fake_llm):
    cache = MemoryCache()
    fake_llm.script = ["ann's", "bob's"]
    run(model(fake_llm.base_url, cache, scope="user:1", key="ann-key"))
    again = run(model(fake_llm.base_url, cache, scope="user:1", key="ann-key"))
    other = run(model(fake_llm.base_url, cache, scope="user:2", key="bob-key"))
    assert again.call.cache_hit and again.text == "ann's"
    assert not other.call.cache_hit and other.text == "bob's"


def test_keys_differ_by_endpoint_model_request_and_scope():
    params = {"model": "m", "messages": MESSAGES}
    base = request_key("http://a.example/v1", params, "server")
    assert base == request_key("http://a.example/v1/", dict(params), "server")
    assert base != request_key("http://b.example/v1", params, "server")
    assert base != request_key("http://a.example/v1", {**params, "model": "n"}, "server")
    assert base != request_key("http://a.example/v1", {**params, "messages": []}, "server")
    assert base != request_key("http://a.example/v1", params, "user:1")
