"""Finding 10 (who shares): replies to a user's own key or endpoint are cached for that user alone."""

from __future__ import annotations

import pytest

from annotations.llm.client import chat_model_for
from annotations.llm.crypto import encrypt_secret
from annotations.models import UserLLMSettings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def server_llm(settings):
    settings.HEDIT_LLM = {"BASE_URL": "https://server.example/v1", "API_KEY": "server-key", "MODEL": "m",
                          "CONSTRAINT": "none", "CACHE_TTL": 3600}


def test_cache_scopes(user, other_user, reviewer):
    UserLLMSettings.objects.create(user=user, encrypted_api_key=encrypt_secret("sk-ann"))
    UserLLMSettings.objects.create(user=other_user, base_url="https://bob.example/v1", model="m")
    assert chat_model_for(user).config.cache_scope == f"user:{user.pk}"
    assert chat_model_for(other_user).config.cache_scope == f"user:{other_user.pk}"
    assert chat_model_for(reviewer).config.cache_scope == "server"
    assert chat_model_for(None).config.cache_scope == "server"
