"""Which model answers a user's runs: their own endpoint, the server's, or none (offline)."""

from __future__ import annotations

import logging
import os
from typing import Any

from django.conf import settings

from agents.llm.base import ChatModel, UnavailableModel
from agents.llm.configuration import OFFLINE_CHOICE
from agents.llm.providers import preset_name, resolve_config, values_from_env
from annotations.llm.cache import DatabaseResponseCache
from annotations.llm.crypto import SecretUnreadable, decrypt_secret
from annotations.models import UserLLMSettings

logger = logging.getLogger(__name__)

# Settings that belong to the server whichever endpoint a user picks.
_SERVER_ONLY = ("TIMEOUT", "MAX_RETRIES", "SEED", "MAX_TOKENS", "PRICES", "MAX_REPLY_BYTES", "REPLY_SECONDS")


def server_values() -> dict[str, Any]:
    """``settings.HEDIT_LLM``, completed from the environment for keys it does not define
    (per-agent models ``HEDIT_LLM_MODEL_<AGENT>``, ``HEDIT_LLM_PRICES``, ``HEDIT_LLM_SEED``...)."""
    values = dict(getattr(settings, "HEDIT_LLM", {}) or {})
    for key, value in values_from_env(os.environ).items():
        values.setdefault(key, value)
    return values


def _response_cache(values: dict[str, Any]) -> Any:
    try:
        ttl = int(values.get("CACHE_TTL") or 0)
    except (TypeError, ValueError):
        ttl = 0
    if ttl <= 0:
        return None
    return DatabaseResponseCache(ttl)


class ModelNotOffered(ValueError):
    """A user asked for a model the server does not offer on its own key; the message is for the user."""


def server_models(server: dict[str, Any] | None = None) -> list[str]:
    """Models a user may choose to run on the server's key: ``HEDIT_LLM_SERVER_MODELS``, else the
    server's own configured models (its model and per-agent models)."""
    listed = [m for m in getattr(settings, "HEDIT_LLM_SERVER_MODELS", []) or [] if m]
    if listed:
        return listed
    config = resolve_config(server if server is not None else server_values())
    if config is None:
        return []
    return list(dict.fromkeys(m for m in (config.model, *config.agent_models.values()) if m))


def check_server_models(models: list[str], server: dict[str, Any] | None = None) -> None:
    """Raise :class:`ModelNotOffered` unless every model in *models* may run on the server's key."""
    offered = server_models(server)
    refused = [m for m in models if m and m not in offered]
    if refused:
        choices = ", ".join(offered) or "none"
        raise ModelNotOffered(f"{', '.join(refused)} is not offered on the server's key (offered: {choices}). "
                              "Choose an offered model, or enter your own key or endpoint.")


def user_values(user: Any, server: dict[str, Any], *, draft: UserLLMSettings | None = None,
                key: str | None = None) -> dict[str, Any] | None:
    """The values for *user*'s own settings, or None when they stored none.

    A user endpoint never receives the server's key and is untrusted (its connections are checked
    against internal addresses); a user key without an endpoint is sent to the server's endpoint
    ("bring your own key").  Replies to a user's own key or endpoint are cached for that user alone.
    A model choice without a key of one's own must be one the server offers.
    Raises :class:`SecretUnreadable` and :class:`ModelNotOffered`.
    """
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    # A draft (unsaved settings, with the key typed in or None for the stored one) goes through the
    # very same rules, so "Test connection" tries exactly what a run would use.
    stored = draft if draft is not None else UserLLMSettings.objects.filter(user=user).first()
    if stored is None:
        return None
    if key is None:
        key = decrypt_secret(stored.encrypted_api_key) if stored.encrypted_api_key else ""
    common = {k: server[k] for k in (*_SERVER_ONLY, "CACHE_TTL") if k in server}
    scope = f"user:{user.pk}"
    if stored.base_url or stored.provider:
        return {**common, "PROVIDER": stored.provider, "BASE_URL": stored.base_url, "API_KEY": key,
                "MODEL": stored.model, "AGENT_MODELS": stored.agent_models or {},
                "CONSTRAINT": "auto" if preset_name(stored.provider) else "none",
                "TRUSTED": False, "ALLOWED_HOSTS": list(getattr(settings, "HEDIT_LLM_ALLOWED_HOSTS", []) or []),
                "CACHE_SCOPE": scope}
    if key or stored.model or stored.agent_models:
        values = dict(server)
        if key:
            values["API_KEY"] = key
            values["CACHE_SCOPE"] = scope
        else:
            check_server_models([stored.model, *(stored.agent_models or {}).values()], server)
        if stored.model:
            values["MODEL"] = stored.model
        if stored.agent_models:
            values["AGENT_MODELS"] = {**(server.get("AGENT_MODELS") or {}), **stored.agent_models}
        return values
    return None


def chat_model_for(user: Any, *, draft: UserLLMSettings | None = None, key: str | None = None) -> ChatModel | None:
    """The chat model for *user*'s runs, or None for the offline annotator (*draft*, *key*: see user_values)."""
    from agents.llm.openai_model import OpenAIChatModel

    server = server_values()
    try:
        values = user_values(user, server, draft=draft, key=key) or server
    except SecretUnreadable:
        logger.warning("stored API key of user %s cannot be decrypted", getattr(user, "pk", "?"))
        return UnavailableModel("your stored API key cannot be decrypted any more; enter it again on the "
                                "LLM settings page")
    except ModelNotOffered as exc:
        return UnavailableModel(f"{exc} (LLM settings page)")
    try:
        config = resolve_config(values)
    except ValueError as exc:
        return UnavailableModel(f"the LLM configuration is invalid: {exc}")
    if config is None:
        return None
    return OpenAIChatModel(config, cache=_response_cache(values))


def server_summary() -> dict[str, str]:
    """What the settings page may show of the server's configuration (never the key)."""
    config = resolve_config(server_values())
    if config is None:
        return {}
    return {"provider": config.provider, "base_url": config.base_url, "model": config.model,
            "constraint": config.constraint}


# --- a model chosen by name (evaluation runs) --------------------------------------------------


def own_models(stored: UserLLMSettings | None) -> list[str]:
    """The models *stored* settings name (the model and each agent's), in order, once each."""
    if stored is None:
        return []
    return list(dict.fromkeys(m for m in (stored.model, *(stored.agent_models or {}).values()) if m))


def model_choices(user: Any) -> list[str]:
    """The names a user may choose a model by: ``offline``, the models of their own settings, and the models
    the server offers on its key."""
    stored = (UserLLMSettings.objects.filter(user=user).first()
              if user is not None and getattr(user, "is_authenticated", False) else None)
    return list(dict.fromkeys([OFFLINE_CHOICE, *own_models(stored), *server_models()]))


def _named(values: dict[str, Any], name: str) -> dict[str, Any]:
    """*values* with *name* as the annotation model (the other agents keep theirs)."""
    agents = {k: v for k, v in (values.get("AGENT_MODELS") or {}).items() if k != "annotation"}
    return {**values, "MODEL": name, "AGENT_MODELS": agents}


def values_named(user: Any, name: str) -> dict[str, Any] | None:
    """The values for a run of model *name*: the user's own endpoint (or key) when their settings name it, else
    the server's endpoint when it offers it; None for ``offline``. Raises :class:`ModelNotOffered` for a name
    that is none of :func:`model_choices`, and :class:`SecretUnreadable`."""
    name = (name or "").strip()
    if name == OFFLINE_CHOICE:
        return None
    server = server_values()
    stored = (UserLLMSettings.objects.filter(user=user).first()
              if user is not None and getattr(user, "is_authenticated", False) else None)
    if name in own_models(stored):
        values = user_values(user, server)
        if values is not None:
            return _named(values, name)
    if name in server_models(server):
        return _named(server, name)
    raise ModelNotOffered(f"{name!r} is not a model you have configured; choose one of "
                          f"{', '.join(model_choices(user))}")


def chat_model_named(user: Any, name: str) -> ChatModel | None:
    """The chat model *name* for *user*'s run (:func:`values_named`), None for the offline annotator; a model that
    cannot be built is an :class:`UnavailableModel` whose calls fail with why."""
    from agents.llm.openai_model import OpenAIChatModel

    try:
        values = values_named(user, name)
    except SecretUnreadable:
        return UnavailableModel("your stored API key cannot be decrypted any more; enter it again on the "
                                "LLM settings page")
    except ModelNotOffered as exc:
        return UnavailableModel(str(exc))
    if values is None:
        return None
    try:
        config = resolve_config(values)
    except ValueError as exc:
        return UnavailableModel(f"the LLM configuration is invalid: {exc}")
    if config is None:
        return UnavailableModel(f"no endpoint is configured for {name}")
    return OpenAIChatModel(config, cache=_response_cache(values))


def run_model_for(user: Any, choice: str = "") -> ChatModel | None:
    """The model a run uses: the one chosen by name (*choice*, an evaluation run's), else the user's own."""
    return chat_model_named(user, choice) if choice else chat_model_for(user)
