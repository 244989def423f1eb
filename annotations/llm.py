"""Which model answers a user's runs: their own endpoint, the server's, or none (offline)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from agents.llm.base import ChatModel


def chat_model_for(user: Any) -> ChatModel | None:
    """The chat model for *user*'s runs, or None for the offline annotator."""
    config = settings.HEDIT_LLM
    if not config.get("BASE_URL"):
        return None
    from agents.llm.openai_model import OpenAIChatModel, ProviderConfig

    return OpenAIChatModel(ProviderConfig(base_url=config["BASE_URL"], api_key=config.get("API_KEY", ""),
                                          model=config.get("MODEL", ""), timeout=config.get("TIMEOUT", 60),
                                          max_retries=config.get("MAX_RETRIES", 3)))
