"""From the settings form to a user's settings: preset defaults, and the same object for save and test."""

from __future__ import annotations

from typing import Any

from agents.llm.providers import PRESETS, preset_name
from annotations.llm.crypto import encrypt_secret
from annotations.models import UserLLMSettings


def preset_defaults() -> dict[str, dict[str, str]]:
    """Each preset's base URL and model, for the page's script that fills them in on change."""
    return {name: {"base_url": p.base_url, "model": p.model} for name, p in PRESETS.items()}


def with_preset(provider: str, base_url: str, model: str) -> tuple[str, str]:
    """*base_url* and *model*, each filled from *provider*'s preset where left empty.

    Stored filled in, so the page shows what a run will call instead of empty fields.
    """
    preset = PRESETS.get(preset_name(provider))
    if preset is None:
        return base_url, model
    return base_url or preset.base_url, model or preset.model


def draft_from(form: Any, user: Any, stored: UserLLMSettings | None) -> tuple[UserLLMSettings, str | None]:
    """Unsaved settings from a valid form, and the key to use: the typed one, "" when the stored key
    is to be removed, or None for the stored key (which the draft carries, still encrypted)."""
    data = form.cleaned_data
    base_url, model = with_preset(data["provider"], data["base_url"], data["model"].strip())
    draft = UserLLMSettings(user=user, provider=data["provider"], base_url=base_url, model=model,
                            agent_models=form.agent_models(),
                            encrypted_api_key=stored.encrypted_api_key if stored is not None else "")
    if data["remove_key"]:
        return draft, ""
    return draft, (data["api_key"] or None)


def save_form(form: Any, user: Any, stored: UserLLMSettings | None) -> UserLLMSettings:
    """Store a valid form's settings for *user*, the key encrypted; an empty key field keeps the stored key."""
    draft, key = draft_from(form, user, stored)
    target = stored or UserLLMSettings(user=user)
    target.provider, target.base_url, target.model = draft.provider, draft.base_url, draft.model
    target.agent_models = draft.agent_models
    if key == "":
        target.encrypted_api_key = ""
    elif key:
        target.encrypted_api_key = encrypt_secret(key)
    target.save()
    return target
