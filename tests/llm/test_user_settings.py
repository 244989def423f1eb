"""Users' own endpoint and key: encrypted at rest, never shown back, used for their runs only."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.fernet import Fernet
from django.urls import reverse

from agents.llm.base import LLMError, UnavailableModel
from agents.llm.openai_model import OpenAIChatModel
from annotations.llm.client import chat_model_for
from annotations.llm.crypto import SecretUnreadable, decrypt_secret, encrypt_secret
from annotations.models import UserLLMSettings

SECRET_KEY_VALUE = "sk-user-very-secret-0123456789"
SERVER = {"PROVIDER": "", "BASE_URL": "http://server.example/v1", "API_KEY": "server-key", "MODEL": "server-model",
          "CONSTRAINT": "none", "TIMEOUT": 30.0, "MAX_RETRIES": 1, "CACHE_TTL": 0}


@pytest.fixture
def server_llm(settings):
    settings.HEDIT_LLM = dict(SERVER)
    return settings


def test_encryption_round_trips_and_hides_the_key(settings):
    token = encrypt_secret(SECRET_KEY_VALUE)
    assert SECRET_KEY_VALUE not in token and token != encrypt_secret(SECRET_KEY_VALUE)
    assert decrypt_secret(token) == SECRET_KEY_VALUE
    settings.HEDIT_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]  # a different key, the old one gone
    with pytest.raises(SecretUnreadable):
        decrypt_secret(token)


@pytest.mark.django_db
def test_settings_page_stores_the_key_encrypted_and_never_shows_it(client, user, server_llm, caplog):
    client.force_login(user)
    url = reverse("annotations:llm-settings")
    assert url == "/settings/llm/"
    page = client.get(url)
    assert page.status_code == 200 and "No key is stored." in page.content.decode()
    assert "server-key" not in page.content.decode()

    response = client.post(url, {"provider": "", "base_url": "http://mine.example/v1", "model": "my-model",
                                 "evaluation_model": "my-judge", "api_key": SECRET_KEY_VALUE, "save": "1"},
                           follow=True)
    body = response.content.decode()
    assert response.status_code == 200
    assert "A key is stored." in body and SECRET_KEY_VALUE not in body
    stored = UserLLMSettings.objects.get(user=user)
    assert stored.encrypted_api_key and SECRET_KEY_VALUE not in stored.encrypted_api_key
    assert decrypt_secret(stored.encrypted_api_key) == SECRET_KEY_VALUE
    assert stored.agent_models == {"evaluation": "my-judge"}
    assert SECRET_KEY_VALUE not in caplog.text

    # Saving again with an empty key field keeps the stored key.
    client.post(url, {"base_url": "http://mine.example/v1", "model": "other", "api_key": ""})
    stored.refresh_from_db()
    assert stored.model == "other" and decrypt_secret(stored.encrypted_api_key) == SECRET_KEY_VALUE

    client.post(url, {"base_url": "http://mine.example/v1", "model": "other", "remove_key": "on"})
    stored.refresh_from_db()
    assert stored.encrypted_api_key == ""


@pytest.mark.django_db
def test_reset_returns_to_the_server_configuration(client, user, server_llm):
    UserLLMSettings.objects.create(user=user, base_url="http://mine.example/v1", model="mine")
    client.force_login(user)
    client.post(reverse("annotations:llm-settings"), {"reset": "1"})
    assert not UserLLMSettings.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_settings_page_needs_a_login(client):
    response = client.get(reverse("annotations:llm-settings"))
    assert response.status_code == 302 and "login" in response["Location"]


@pytest.mark.django_db
def test_runs_use_the_users_endpoint_and_key(user, server_llm):
    UserLLMSettings.objects.create(user=user, base_url="http://mine.example/v1", model="mine",
                                   agent_models={"vision": "eyes"},
                                   encrypted_api_key=encrypt_secret(SECRET_KEY_VALUE))
    model = chat_model_for(user)
    assert isinstance(model, OpenAIChatModel)
    assert model.config.base_url == "http://mine.example/v1" and model.config.api_key == SECRET_KEY_VALUE
    assert model.config.model_for("vision") == "eyes" and model.config.model_for("evaluation") == "mine"
    assert SECRET_KEY_VALUE not in repr(model) and SECRET_KEY_VALUE not in repr(model.config)


@pytest.mark.django_db
def test_a_user_endpoint_never_receives_the_server_key(user, server_llm):
    UserLLMSettings.objects.create(user=user, base_url="http://mine.example/v1", model="mine")
    assert chat_model_for(user).config.api_key == ""


@pytest.mark.django_db
def test_a_key_alone_is_used_with_the_server_endpoint(user, other_user, server_llm):
    UserLLMSettings.objects.create(user=user, encrypted_api_key=encrypt_secret(SECRET_KEY_VALUE))
    mine, theirs = chat_model_for(user), chat_model_for(other_user)
    assert (mine.config.base_url, mine.config.api_key) == ("http://server.example/v1", SECRET_KEY_VALUE)
    assert (theirs.config.base_url, theirs.config.api_key) == ("http://server.example/v1", "server-key")


@pytest.mark.django_db
def test_an_undecryptable_key_fails_runs_with_one_line(user, server_llm):
    UserLLMSettings.objects.create(user=user, base_url="http://mine.example/v1", encrypted_api_key="garbage")
    model = chat_model_for(user)
    assert isinstance(model, UnavailableModel)
    with pytest.raises(LLMError, match="cannot be decrypted"):
        asyncio.run(model.complete("annotation", []))


@pytest.mark.django_db
def test_no_configuration_means_the_offline_annotator(user, settings):
    settings.HEDIT_LLM = {**SERVER, "BASE_URL": "", "PROVIDER": ""}
    assert chat_model_for(user) is None
    assert chat_model_for(None) is None


@pytest.mark.django_db
def test_a_provider_preset_fills_in_the_endpoint(settings):
    settings.HEDIT_LLM = {**SERVER, "BASE_URL": "", "PROVIDER": "openrouter", "MODEL": "", "CONSTRAINT": "auto"}
    config = chat_model_for(None).config
    assert config.base_url == "https://openrouter.ai/api/v1" and config.model == "openai/gpt-4o-mini"
    assert config.constraint == "json_schema" and config.extra_body == {"usage": {"include": True}}
