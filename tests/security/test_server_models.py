"""Finding 8: on the server's key a user may only choose the models the administrator offers."""

from __future__ import annotations

import asyncio

import pytest

from agents.llm.base import LLMError, UnavailableModel
from agents.llm.openai_model import OpenAIChatModel
from annotations.llm.client import chat_model_for, server_models
from annotations.llm.crypto import encrypt_secret
from annotations.models import UserLLMSettings

pytestmark = pytest.mark.django_db
URL = "/settings/llm/"


@pytest.fixture(autouse=True)
def server_llm(settings):
    settings.HEDIT_LLM = {"BASE_URL": "https://server.example/v1", "API_KEY": "server-key", "MODEL": "small-model",
                          "CONSTRAINT": "none", "CACHE_TTL": 0}
    settings.HEDIT_LLM_SERVER_MODELS = []


def test_a_model_not_offered_cannot_be_saved_without_a_key(client, user):
    client.force_login(user)
    response = client.post(URL, {"model": "o1-pro"})
    assert "o1-pro is not offered on the server&#x27;s key" in response.content.decode()
    assert not UserLLMSettings.objects.filter(user=user).exists()
    response = client.post(URL, {"model": "small-model", "evaluation_model": "o1-pro"})
    assert "o1-pro is not offered" in response.content.decode()


def test_offered_models_and_own_keys_are_accepted(client, user, settings):
    client.force_login(user)
    client.post(URL, {"model": "small-model"})
    assert UserLLMSettings.objects.get(user=user).model == "small-model"
    settings.HEDIT_LLM_SERVER_MODELS = ["small-model", "big-model"]
    assert server_models() == ["small-model", "big-model"]
    client.post(URL, {"model": "big-model"})
    assert UserLLMSettings.objects.get(user=user).model == "big-model"
    client.post(URL, {"model": "o1-pro", "api_key": "sk-mine"})  # their key, their bill
    assert UserLLMSettings.objects.get(user=user).model == "o1-pro"


def test_a_stored_model_no_longer_offered_never_runs_on_the_server_key(user):
    UserLLMSettings.objects.create(user=user, model="o1-pro")  # saved before the fix, or the list shrank
    model = chat_model_for(user)
    assert isinstance(model, UnavailableModel)
    with pytest.raises(LLMError, match="not offered"):
        asyncio.run(model.complete("annotation", []))
    UserLLMSettings.objects.filter(user=user).update(encrypted_api_key=encrypt_secret("sk-mine"))
    mine = chat_model_for(user)
    assert isinstance(mine, OpenAIChatModel) and mine.config.model == "o1-pro" and mine.config.api_key == "sk-mine"
