"""A user's own LLM endpoint, key and models."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters

from annotations.llm.client import server_summary
from annotations.llm.crypto import encrypt_secret
from annotations.llm.forms import LLMSettingsForm
from annotations.models import UserLLMSettings

logger = logging.getLogger(__name__)


@sensitive_post_parameters("api_key")
@login_required
def llm_settings(request: HttpRequest) -> HttpResponse:
    stored = UserLLMSettings.objects.filter(user=request.user).first()
    has_key = bool(stored and stored.encrypted_api_key)
    if request.method == "POST" and "reset" in request.POST:
        if stored is not None:
            stored.delete()
        logger.info("user %s removed their LLM settings", request.user.pk)
        messages.success(request, "Your LLM settings are removed; runs use the server's configuration.")
        return redirect("annotations:llm-settings")
    if request.method == "POST":
        form = LLMSettingsForm(request.POST, has_key=has_key)
        if form.is_valid():
            data = form.cleaned_data
            stored = stored or UserLLMSettings(user=request.user)
            stored.provider = data["provider"]
            stored.base_url = data["base_url"]
            stored.model = data["model"].strip()
            stored.agent_models = form.agent_models()
            if data["remove_key"]:
                stored.encrypted_api_key = ""
            elif data["api_key"]:
                stored.encrypted_api_key = encrypt_secret(data["api_key"])
            stored.save()
            logger.info("user %s saved their LLM settings (key stored: %s)", request.user.pk,
                        bool(stored.encrypted_api_key))
            messages.success(request, "Your LLM settings are saved.")
            return redirect("annotations:llm-settings")
    else:
        form = LLMSettingsForm(initial=LLMSettingsForm.initial_from(stored), has_key=has_key)
    return render(request, "annotations/llm/settings.html",
                  {"form": form, "stored": stored, "has_key": has_key, "server": server_summary()})
