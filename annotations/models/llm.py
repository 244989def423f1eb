"""A user's LLM endpoint settings and the shared response cache."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class LLMResponseCache(models.Model):
    """Identical requests (model, messages, parameters) answered without calling the model again."""

    key = models.CharField(max_length=64, unique=True)
    model = models.CharField(max_length=255)
    response = models.TextField()
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = "cached LLM response"

    def __str__(self) -> str:
        return f"{self.model} {self.key[:12]}"


class UserLLMSettings(models.Model):
    """A user's own endpoint; the key is stored encrypted and never shown back."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="llm_settings")
    provider = models.CharField(max_length=32, blank=True)
    base_url = models.URLField(max_length=500, blank=True)
    model = models.CharField(max_length=255, blank=True)
    agent_models = models.JSONField(default=dict, blank=True)
    encrypted_api_key = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "user LLM settings"
        verbose_name_plural = "user LLM settings"

    def __str__(self) -> str:
        return f"{self.user} -> {self.base_url or 'server default'}"
