"""A user's own LLM endpoint, key and models."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from annotations.hooks import MODEL_CHANGED
from annotations.llm.client import server_summary
from annotations.llm.drafts import draft_from, preset_defaults, save_form, with_preset
from annotations.llm.forms import LLMSettingsForm
from annotations.llm.status import ConnectionResult, check_connection, run_llm_for
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
        _model_changed(request)
        return redirect("annotations:llm-settings")
    if request.method == "POST":
        form = LLMSettingsForm(request.POST, has_key=has_key)
        if form.is_valid():
            stored = save_form(form, request.user, stored)
            logger.info("user %s saved their LLM settings (key stored: %s)", request.user.pk,
                        bool(stored.encrypted_api_key))
            messages.success(request, "Your LLM settings are saved.")
            _model_changed(request)
            return redirect("annotations:llm-settings")
    else:
        form = LLMSettingsForm(initial=_initial(stored), has_key=has_key)
    return _page(request, form, stored, has_key, status=400 if form.is_bound else 200)


def _model_changed(request: HttpRequest) -> None:
    """The user's model changed: what depends on it follows (the watched evaluation sets run again), through
    the hook, since evaluation sits above llm (AnnotationsConfig.ready registers it)."""
    for changed in MODEL_CHANGED.targets():
        changed(request)


def _initial(stored: UserLLMSettings | None) -> dict[str, Any]:
    initial = LLMSettingsForm.initial_from(stored)
    if initial.get("provider"):
        # Settings saved before presets were filled in show what the preset stands for.
        initial["base_url"], initial["model"] = with_preset(initial["provider"], initial.get("base_url") or "",
                                                            initial.get("model") or "")
    return initial


def _page(request: HttpRequest, form: LLMSettingsForm, stored: UserLLMSettings | None, has_key: bool, *,
          result: ConnectionResult | None = None, status: int = 200) -> HttpResponse:
    return render(request, "annotations/llm/settings.html", {
        "form": form, "stored": stored, "has_key": has_key, "server": server_summary(),
        "plan": run_llm_for(request.user), "presets_json": json.dumps(preset_defaults()), "result": result,
    }, status=status)


@sensitive_post_parameters("api_key")
@login_required
@require_POST
def llm_test_connection(request: HttpRequest) -> HttpResponse:
    """One tiny call with the form's current values (the stored key when the key field is empty).

    htmx gets the one-line result; without JavaScript the whole page comes back with it.
    """
    stored = UserLLMSettings.objects.filter(user=request.user).first()
    has_key = bool(stored and stored.encrypted_api_key)
    form = LLMSettingsForm(request.POST, has_key=has_key)
    if form.is_valid():
        draft, key = draft_from(form, request.user, stored)
        result = check_connection(request.user, draft, key)
    else:
        # The same checks as saving (the endpoint guard among them): nothing is called when they fail.
        errors = [e for field_errors in form.errors.values() for e in field_errors]
        result = ConnectionResult(False, f"Not tested: {errors[0]}" if errors else "Not tested.")
    logger.info("user %s tested an LLM connection: %s", request.user.pk, "ok" if result.ok else "failed")
    if request.htmx:
        return render(request, "annotations/llm/partials/connection.html", {"result": result})
    return _page(request, form, stored, has_key, result=result)
