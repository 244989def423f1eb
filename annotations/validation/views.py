"""The validator page and its fragment endpoint (also used by the correction editor)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_POST

from agents.validation import validate_hed
from annotations.limits import validation_wait
from annotations.validation.forms import MAX_HED_CHARS, ValidateForm

RESULT_TEMPLATE = "annotations/validation/partials/result.html"


def check(data: Any, user: Any = None) -> tuple[dict[str, Any], int]:
    """Validate the posted HED string; returns the result template's context and the status code.

    With *user*, one validation counts against their ``HEDIT_VALIDATE_RATE`` (429 past it).
    """
    form = ValidateForm(data)
    wait = validation_wait(user) if user is not None else 0
    if wait:
        return {"form": form, "form_errors": [f"Too many validations in a short time; try again in {wait} s."]}, 429
    if not form.is_valid():
        named = [f"{form.fields[name].label if name in form.fields else name}: {message}"
                 for name, messages in form.errors.items() for message in messages]
        return {"form": form, "form_errors": named}, 400
    hed = form.cleaned_data["hed"]
    version = form.cleaned_data["schema_version"]
    if len(hed) > MAX_HED_CHARS:
        return {"form": form, "form_errors": [f"The HED string is {len(hed)} characters; the limit is "
                                              f"{MAX_HED_CHARS}."]}, 400
    if not hed:
        return {"form": form, "empty": True}, 200
    issues = validate_hed(hed, version, no_extend=form.cleaned_data["no_extend"])
    errors = [i for i in issues if i.is_error]
    return {"form": form, "hed": hed, "schema_version": version, "issues": issues, "errors": errors,
            "warnings": [i for i in issues if not i.is_error], "is_valid": not errors}, 200


@login_required
@require_http_methods(["GET", "POST"])
def validate(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "annotations/validation/validate.html", {"form": ValidateForm(), "has_result": False})
    # Without JavaScript the form posts here and the whole page comes back with the result.
    result, status = check(request.POST, request.user)
    return render(request, "annotations/validation/validate.html", {**result, "has_result": True}, status=status)


@login_required
@require_POST
def validate_check(request: HttpRequest) -> HttpResponse:
    """POST ``hed``, ``schema_version`` and optional ``no_extend``; returns the result fragment."""
    result, status = check(request.POST, request.user)
    return render(request, RESULT_TEMPLATE, result, status=status)
