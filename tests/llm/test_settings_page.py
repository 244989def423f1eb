"""The LLM settings page: presets fill in their endpoint, "Test connection" makes one small call
through the runs' own guarded client, and the page says what the next run will use."""

from __future__ import annotations

import html
import json
import re

import pytest

from agents.llm.providers import PRESETS
from annotations.llm.client import chat_model_for
from annotations.llm.crypto import encrypt_secret
from annotations.llm.status import PING_MAX_TOKENS, run_llm_for
from annotations.models import UserLLMSettings
from tests.support.fake_openai import FakeOpenAI, closed_port_url

pytestmark = pytest.mark.django_db

PAGE = "/settings/llm/"
TEST = "/settings/llm/test/"
HTMX = {"HTTP_HX_REQUEST": "true"}
SERVER = {"BASE_URL": "http://server.example/v1", "API_KEY": "server-key", "MODEL": "server-model",
          "MAX_RETRIES": 0, "CACHE_TTL": 0}


@pytest.fixture
def local_endpoints(settings):
    # The scripted endpoint listens on loopback, which user endpoints may reach only when allowed.
    settings.HEDIT_LLM_ALLOWED_HOSTS = ["127.0.0.1"]
    return settings


def form(**values: str) -> dict[str, str]:
    return {"provider": "", "base_url": "", "model": "", "api_key": "", **values}


def result_line(response) -> str:
    match = re.search(r'<p id="connection-result"[^>]*>(.*?)</p>', response.content.decode(), re.S)
    assert match, response.content.decode()[:500]
    return html.unescape(match.group(1))


# --- presets ----------------------------------------------------------------------------------

def test_a_preset_fills_in_base_url_and_model_when_saved(client, user) -> None:
    client.force_login(user)
    response = client.post(PAGE, form(provider="openrouter", api_key="sk-x"))
    assert response.status_code == 302
    stored = UserLLMSettings.objects.get(user=user)
    assert (stored.base_url, stored.model) == ("https://openrouter.ai/api/v1", "openai/gpt-4o-mini")
    page = client.get(PAGE).content.decode()
    assert 'value="https://openrouter.ai/api/v1"' in page and 'value="openai/gpt-4o-mini"' in page


def test_typed_values_win_over_the_preset(client, user) -> None:
    client.force_login(user)
    client.post(PAGE, form(provider="openai", base_url="https://proxy.example/v1", model="gpt-4.1", api_key="k"))
    stored = UserLLMSettings.objects.get(user=user)
    assert (stored.base_url, stored.model) == ("https://proxy.example/v1", "gpt-4.1")


def test_older_settings_with_only_a_preset_show_its_values(client, user) -> None:
    UserLLMSettings.objects.create(user=user, provider="openai")
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    assert 'value="https://api.openai.com/v1"' in page and 'value="gpt-4o-mini"' in page


def test_the_page_gives_its_script_every_preset_and_has_no_inline_script(client, user) -> None:
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    presets = json.loads(html.unescape(re.search(r'data-presets="([^"]*)"', page).group(1)))
    assert presets == {name: {"base_url": p.base_url, "model": p.model} for name, p in PRESETS.items()}
    assert '<script src="/static/js/llm-settings.js" defer></script>' in page
    assert not re.search(r"<script(?![^>]*\bsrc=)", page) and not re.search(r"\son[a-z]+=", page)


# --- what the next run uses ----------------------------------------------------------------------

def test_offline_is_said_when_nothing_is_configured(client, user, settings) -> None:
    settings.HEDIT_LLM = {}
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    assert "Your next run will use the offline annotator" in page
    assert "Stimulus images are refused: no vision model is configured." in page
    assert chat_model_for(user) is None


def test_the_servers_model_is_named(client, user, settings) -> None:
    settings.HEDIT_LLM = {**SERVER, "AGENT_MODELS": {"vision": "eyes"}}
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    assert "Your next run will use the server&#x27;s model server-model at http://server.example/v1." in page
    assert "Stimulus images are described by eyes." in page


def test_a_users_endpoint_is_named_as_runs_will_use_it(client, user, settings) -> None:
    settings.HEDIT_LLM = dict(SERVER)
    UserLLMSettings.objects.create(user=user, base_url="https://mine.example/v1", model="mine")
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    assert "Your next run will use your endpoint https://mine.example/v1 with model mine." in page
    # Computed from the very model runs get, not a separate guess.
    config = chat_model_for(user).config
    plan = run_llm_for(user)
    assert (plan.base_url, plan.model) == (config.base_url, config.model)


def test_a_key_alone_names_the_servers_endpoint_with_your_key(client, user, settings) -> None:
    settings.HEDIT_LLM = dict(SERVER)
    UserLLMSettings.objects.create(user=user, encrypted_api_key=encrypt_secret("sk-mine"))
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    assert "the server&#x27;s endpoint http://server.example/v1 with your key and model server-model" in page


def test_runs_that_will_fail_are_said_to_fail(client, user, settings) -> None:
    settings.HEDIT_LLM = dict(SERVER)
    UserLLMSettings.objects.create(user=user, base_url="https://mine.example/v1", encrypted_api_key="garbage")
    client.force_login(user)
    assert "Your next run will fail: Your stored API key cannot be decrypted" in client.get(PAGE).content.decode()


# --- test connection -----------------------------------------------------------------------------

def test_test_connection_makes_one_small_call_and_saves_nothing(client, user, local_endpoints) -> None:
    with FakeOpenAI(["ready"]) as server:
        client.force_login(user)
        response = client.post(TEST, form(base_url=server.base_url, model="tiny", api_key="sk-typed"), **HTMX)
        assert response.status_code == 200
        assert result_line(response) == f"Connected: tiny at {server.base_url} answered “ready”."
        [call] = server.chat_requests()
        assert call.body["model"] == "tiny" and call.body["max_tokens"] == PING_MAX_TOKENS
        assert call.headers.get("authorization") == "Bearer sk-typed"
    assert not UserLLMSettings.objects.exists()
    assert "<html" not in response.content.decode()  # the htmx answer is the one line


def test_an_empty_key_field_tests_with_the_stored_key(client, user, local_endpoints) -> None:
    with FakeOpenAI(["ok"], required_key="sk-stored") as server:
        UserLLMSettings.objects.create(user=user, base_url=server.base_url, model="m",
                                       encrypted_api_key=encrypt_secret("sk-stored"))
        client.force_login(user)
        assert result_line(client.post(TEST, form(base_url=server.base_url, model="m"), **HTMX)).startswith("Connected")
        failed = result_line(client.post(TEST, form(base_url=server.base_url, model="m", api_key="sk-wrong"), **HTMX))
        assert failed.startswith("Failed: ") and "refused the API key" in failed
        assert "sk-wrong" not in failed and "\n" not in failed


def test_an_unreachable_endpoint_is_one_line(client, user, local_endpoints) -> None:
    url = closed_port_url()
    client.force_login(user)
    line = result_line(client.post(TEST, form(base_url=url, model="m", api_key="k"), **HTMX))
    assert line == f"Failed: Cannot reach the LLM endpoint {url}."


def test_test_connection_goes_through_the_endpoint_guard(client, user, settings) -> None:
    settings.HEDIT_LLM_ALLOWED_HOSTS = []
    with FakeOpenAI(["ready"]) as server:
        client.force_login(user)
        line = result_line(client.post(TEST, form(base_url=server.base_url, model="m", api_key="k"), **HTMX))
        assert line.startswith("Not tested: ") and "private network" in line
        assert server.requests == []


def test_the_tested_model_is_the_runs_guarded_one(user, settings) -> None:
    settings.HEDIT_LLM_ALLOWED_HOSTS = ["10.0.0.0/8"]
    draft = UserLLMSettings(user=user, base_url="https://mine.example/v1", model="m")
    config = chat_model_for(user, draft=draft, key="k").config
    assert config.trusted is False and config.allowed_hosts == ("10.0.0.0/8",) and config.api_key == "k"


def test_nothing_to_test_offline(client, user, settings) -> None:
    settings.HEDIT_LLM = {}
    client.force_login(user)
    line = result_line(client.post(TEST, form(), **HTMX))
    assert line == "Nothing to test: no endpoint is set, so runs use the offline annotator."


def test_without_javascript_the_whole_page_comes_back_with_the_result(client, user, local_endpoints) -> None:
    with FakeOpenAI(["ready"]) as server:
        client.force_login(user)
        response = client.post(TEST, form(base_url=server.base_url, model="tiny", api_key="k"))
        page = response.content.decode()
        assert response.status_code == 200 and 'id="llm-settings-form"' in page
        assert "Connected: tiny" in result_line(response)
        # The typed values stay in the form (the key never comes back).
        assert f'value="{server.base_url}"' in page and 'value="k"' not in page


def test_test_connection_is_post_only_and_needs_a_login(client, user) -> None:
    assert client.post(TEST, form()).status_code == 302
    client.force_login(user)
    assert client.get(TEST).status_code == 405


def test_the_settings_page_has_the_button(client, user) -> None:
    client.force_login(user)
    page = client.get(PAGE).content.decode()
    assert re.search(r'<button type="submit"[^>]*name="test"[^>]*formaction="/settings/llm/test/"[^>]*'
                     r'hx-post="/settings/llm/test/"[^>]*hx-target="#connection-result"', page, re.S)
