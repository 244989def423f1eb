"""Finding 3 (connections): a user's endpoint never reaches loopback, private or internal addresses,
whatever DNS answers and wherever a redirect points, and its errors never tell ports apart."""

from __future__ import annotations

import asyncio
import socket

import pytest

from agents.llm.base import LLMError
from agents.llm.endpoints import AllowList, UnsafeEndpoint, check_endpoint_url, is_internal
from agents.llm.openai_model import OpenAIChatModel
from agents.llm.providers import ProviderConfig, resolve_config
from tests.support.fake_openai import Reply, closed_port_url

MESSAGES = [{"role": "user", "content": "hi"}]


def user_model(base_url: str, *, allowed: tuple[str, ...] = (), timeout: float = 5.0) -> OpenAIChatModel:
    return OpenAIChatModel(ProviderConfig(base_url=base_url, api_key="k", model="m", timeout=timeout,
                                          max_retries=0, trusted=False, allowed_hosts=allowed))


def ask(model: OpenAIChatModel) -> str:
    async def go() -> str:
        try:
            return (await model.complete("annotation", MESSAGES)).text
        finally:
            await model.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
                                     "0.0.0.0", "100.64.0.1", "224.0.0.1", "::1", "fe80::1", "fc00::1",
                                     "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1"])
def test_internal_addresses_are_recognised(address):
    assert is_internal(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"])
def test_public_addresses_are_not_internal(address):
    assert not is_internal(address)


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379/v1", "http://localhost:11434/v1", "http://[::1]/v1",
                                 "http://[::ffff:7f00:1]/v1", "http://169.254.169.254/latest", "http://10.0.0.5/v1",
                                 "http://0.0.0.0:8000/v1", "http://internal.example/v1"])
def test_internal_urls_are_refused_when_saved(url, fake_dns):
    fake_dns({"internal.example": ["192.168.0.10"], "localhost": ["127.0.0.1", "::1"]})
    with pytest.raises(UnsafeEndpoint, match="private network"):
        check_endpoint_url(url, AllowList())


@pytest.mark.parametrize("url", ["ftp://example.org/v1", "file:///etc/passwd", "gopher://x/", "http://u:p@example.org/"])
def test_only_plain_http_urls_are_accepted(url):
    with pytest.raises(UnsafeEndpoint):
        check_endpoint_url(url, AllowList())


def test_public_hosts_and_allowed_internal_hosts_are_accepted(fake_dns):
    fake_dns({"api.example": ["93.184.216.34"], "ollama.lab": ["10.0.5.7"], "gpu.lab.org": ["10.9.0.1"]})
    check_endpoint_url("https://api.example/v1", AllowList())
    allow = AllowList.parse("ollama.lab, .lab.org, 192.168.7.0/24")
    check_endpoint_url("http://ollama.lab:11434/v1", allow)
    check_endpoint_url("http://gpu.lab.org/v1", allow)
    check_endpoint_url("http://192.168.7.20/v1", allow)
    with pytest.raises(UnsafeEndpoint):
        check_endpoint_url("http://192.168.8.20/v1", allow)


def test_a_user_endpoint_on_loopback_is_never_called(fake_llm):
    with pytest.raises(LLMError) as caught:
        ask(user_model(fake_llm.base_url))
    assert str(caught.value) == f"cannot reach the LLM endpoint {fake_llm.base_url}"
    assert fake_llm.requests == []


def test_dns_rebinding_is_refused_before_connecting(fake_llm, fake_dns):
    # The name resolves to a public address and to loopback: any internal answer refuses the host.
    port = fake_llm.base_url.split(":")[2].split("/")[0]
    fake_dns({"rebind.example": ["93.184.216.34", "127.0.0.1"]})
    with pytest.raises(LLMError, match="cannot reach"):
        ask(user_model(f"http://rebind.example:{port}/v1"))
    assert fake_llm.requests == []


def test_the_checked_address_is_the_one_connected_to(fake_llm, fake_dns, monkeypatch):
    # Resolved once: the socket opens to the address that was checked, not to a second lookup.
    port = fake_llm.base_url.split(":")[2].split("/")[0]
    fake_dns({"lab.example": ["127.0.0.1"]})
    patched, calls = socket.getaddrinfo, []

    def counting(host, *args, **kwargs):
        calls.append(host.decode() if isinstance(host, bytes) else host)
        return patched(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    assert ask(user_model(f"http://lab.example:{port}/v1", allowed=("127.0.0.0/8",))) == "Sensory-event"
    assert calls == ["lab.example"]


def test_an_allow_listed_internal_endpoint_works(fake_llm):
    assert ask(user_model(fake_llm.base_url, allowed=("127.0.0.1",))) == "Sensory-event"
    assert len(fake_llm.chat_requests()) == 1


def test_a_redirect_to_an_internal_address_is_not_followed(fake_llm, fake_dns):
    fake_llm.script = [Reply(status=307, headers={"Location": "http://127.0.0.1:6379/"}, text="")]
    port = fake_llm.base_url.split(":")[2].split("/")[0]
    fake_dns({"public.example": ["127.0.0.1"]})
    with pytest.raises(LLMError) as caught:
        ask(user_model(f"http://public.example:{port}/v1", allowed=("public.example",)))
    assert "6379" not in str(caught.value)
    assert len(fake_llm.requests) == 1


def test_closed_and_silent_ports_give_the_same_error(fake_llm):
    # Even where an administrator allows the address, a user cannot tell a closed port from a silent one.
    fake_llm.script = [Reply(hang=True)]
    closed = closed_port_url()
    with pytest.raises(LLMError) as refused:
        ask(user_model(closed, allowed=("127.0.0.1",)))
    with pytest.raises(LLMError) as timed_out:
        ask(user_model(fake_llm.base_url, allowed=("127.0.0.1",), timeout=0.5))
    assert str(refused.value).replace(closed, "URL") == str(timed_out.value).replace(fake_llm.base_url, "URL")
    assert str(refused.value) == f"cannot reach the LLM endpoint {closed}"


def test_the_servers_own_endpoint_is_trusted(fake_llm):
    config = resolve_config({"BASE_URL": fake_llm.base_url, "MODEL": "m", "API_KEY": "k", "MAX_RETRIES": 0})
    assert config.trusted
    model = OpenAIChatModel(config)
    assert ask(model) == "Sensory-event"


def test_resolve_config_carries_trust_and_allow_list():
    config = resolve_config({"BASE_URL": "http://x.example/v1", "TRUSTED": False,
                             "ALLOWED_HOSTS": "a.lab, 10.0.0.0/8", "CACHE_SCOPE": "user:7"})
    assert (config.trusted, config.allowed_hosts, config.cache_scope) == (False, ("a.lab", "10.0.0.0/8"), "user:7")
