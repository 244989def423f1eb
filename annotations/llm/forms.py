"""The form behind a user's own LLM settings; the key field is write-only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from agents.llm.endpoints import AllowList, UnsafeEndpoint, check_endpoint_url
from agents.llm.providers import AGENTS, PRESETS, preset_name
from annotations.llm.client import ModelNotOffered, check_server_models

PROVIDER_CHOICES = [("", "Custom endpoint (enter a base URL)")] + [(k, p.label) for k, p in PRESETS.items()]
AGENT_FIELDS = {agent: f"{agent}_model" for agent in AGENTS if agent != "annotation"}


class LLMSettingsForm(forms.Form):
    provider = forms.ChoiceField(choices=PROVIDER_CHOICES, required=False,
                                 help_text="A preset fills in the usual base URL and model.")
    base_url = forms.URLField(required=False, max_length=500, label="Base URL",
                              assume_scheme="https",
                              help_text="An OpenAI-compatible endpoint, e.g. https://openrouter.ai/api/v1 (local "
                                        "and private network addresses only where an administrator allows them). "
                                        "Empty: the preset's URL, or the server's endpoint with your key.")
    model = forms.CharField(required=False, max_length=255, label="Model",
                            help_text="Used by every agent unless set below.")
    evaluation_model = forms.CharField(required=False, max_length=255, label="Evaluation model")
    assessment_model = forms.CharField(required=False, max_length=255, label="Assessment model")
    feedback_model = forms.CharField(required=False, max_length=255, label="Feedback model")
    vision_model = forms.CharField(required=False, max_length=255, label="Vision model",
                                   help_text="Must accept images.")
    # Never rendered back: an empty field keeps whatever key is stored.
    api_key = forms.CharField(required=False, max_length=500, strip=True, label="API key",
                              widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}))
    remove_key = forms.BooleanField(required=False, label="Remove the stored key")

    def __init__(self, *args: Any, has_key: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.has_key = has_key
        self.fields["api_key"].help_text = ("A key is stored. Leave empty to keep it." if has_key
                                            else "Stored encrypted; never shown again.")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("api_key") and data.get("remove_key"):
            raise forms.ValidationError("Enter a new key or remove the stored one, not both.")
        self._check_endpoint(data)
        self._check_models(data)
        return data

    def _check_endpoint(self, data: dict[str, Any]) -> None:
        """A user's endpoint (typed or a preset's) must not point into the server's own networks."""
        preset = PRESETS.get(preset_name(data.get("provider")))
        url = data.get("base_url") or (preset.base_url if preset else "")
        if not url:
            return
        try:
            check_endpoint_url(url, AllowList.parse(getattr(settings, "HEDIT_LLM_ALLOWED_HOSTS", [])))
        except UnsafeEndpoint as exc:
            self.add_error("base_url" if data.get("base_url") else "provider", str(exc))

    def _check_models(self, data: dict[str, Any]) -> None:
        """Without a key or endpoint of one's own, only the models the server offers run on its key."""
        if data.get("base_url") or data.get("provider"):
            return
        if data.get("api_key") or (self.has_key and not data.get("remove_key")):
            return
        try:
            check_server_models([str(data.get("model") or "").strip(), *self.agent_models().values()])
        except ModelNotOffered as exc:
            self.add_error("model", str(exc))

    def agent_models(self) -> dict[str, str]:
        return {agent: self.cleaned_data[field].strip() for agent, field in AGENT_FIELDS.items()
                if (self.cleaned_data.get(field) or "").strip()}

    @classmethod
    def initial_from(cls, stored: Any) -> dict[str, Any]:
        if stored is None:
            return {}
        initial = {"provider": stored.provider, "base_url": stored.base_url, "model": stored.model}
        for agent, field in AGENT_FIELDS.items():
            initial[field] = (stored.agent_models or {}).get(agent, "")
        return initial
