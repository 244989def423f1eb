"""Finding 3 (saving): the LLM settings page refuses endpoints on loopback, private or internal networks,
unless an administrator's allow-list names them; a user's endpoint is always built untrusted."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.llm.client import chat_model_for
from annotations.models import UserLLMSettings

pytestmark = pytest.mark.django_db
URL = "/settings/llm/"
SERVER = {"PROVIDER": "", "BASE_URL": "http://server.example/v1", "API_KEY": "server-key", "MODEL": "server-model",
          "CONSTRAINT": "none", "CACHE_TTL": 0}


@pytest.fixture(autouse=True)
def server_llm(settings):
    settings.HEDIT_LLM = dict(SERVER)
    settings.HEDIT_LLM_ALLOWED_HOSTS = []
    settings.HEDIT_LLM_SERVER_MODELS = []


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:6379/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1",
                                      "http://169.254.169.254/latest/meta-data", "http://10.0.0.7/v1",
                                      "http://redis.internal.example:6379/v1"])
def test_internal_endpoints_cannot_be_saved(client, user, fake_dns, base_url):
    fake_dns({"redis.internal.example": ["10.20.30.40"], "localhost": ["127.0.0.1"]})
    client.force_login(user)
    assert reverse("annotations:llm-settings") == URL
    response = client.post(URL, {"base_url": base_url, "model": "m"})
    assert response.status_code in (200, 400)
    assert "private network" in response.content.decode()
    assert not UserLLMSettings.objects.filter(user=user).exists()


def test_a_preset_pointing_at_loopback_cannot_be_saved(client, user, fake_dns):
    fake_dns({"localhost": ["127.0.0.1"]})
    client.force_login(user)
    response = client.post(URL, {"provider": "ollama"})
    assert "private network" in response.content.decode()
    assert not UserLLMSettings.objects.filter(user=user).exists()


def test_public_and_allow_listed_endpoints_are_saved(client, user, fake_dns, settings):
    fake_dns({"api.example": ["93.184.216.34"], "ollama.lab.example": ["10.1.2.3"]})
    client.force_login(user)
    client.post(URL, {"base_url": "https://api.example/v1", "model": "m"})
    assert UserLLMSettings.objects.get(user=user).base_url == "https://api.example/v1"
    settings.HEDIT_LLM_ALLOWED_HOSTS = ["ollama.lab.example"]
    client.post(URL, {"base_url": "http://ollama.lab.example:11434/v1", "model": "m"})
    assert UserLLMSettings.objects.get(user=user).base_url == "http://ollama.lab.example:11434/v1"


def test_a_users_endpoint_is_untrusted_and_carries_the_allow_list(user, settings):
    settings.HEDIT_LLM_ALLOWED_HOSTS = ["ollama.lab.example"]
    UserLLMSettings.objects.create(user=user, base_url="http://10.0.0.7/v1", model="m")  # saved before the fix
    config = chat_model_for(user).config
    assert config.trusted is False and config.allowed_hosts == ("ollama.lab.example",)
    assert chat_model_for(None).config.trusted is True
