"""A user's API token: one per user, created on this page (shown once) and revoked here."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

logger = logging.getLogger(__name__)


def has_token(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and Token.objects.filter(user=user).exists()


def create_token(user: Any) -> str | None:
    """A new token's key, or None when the user already has one (revoke it first)."""
    token, created = Token.objects.get_or_create(user=user)
    if not created:
        return None
    logger.info("user %s created an API token", user.pk)
    return token.key


def revoke_token(user: Any) -> bool:
    deleted, _ = Token.objects.filter(user=user).delete()
    if deleted:
        logger.info("user %s revoked their API token", user.pk)
    return bool(deleted)


@never_cache
@login_required
def token_page(request: HttpRequest) -> HttpResponse:
    token = Token.objects.filter(user=request.user).only("created").first()
    return render(request, "annotations/api/token.html", {"token": token, "new_key": None})


@never_cache
@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    key = create_token(request.user)
    if key is None:
        messages.error(request, "You already have a token. Revoke it first to create a new one.")
        return redirect("api:token")
    # Shown in this response only: the page never shows it again, and never_cache keeps it out of caches.
    token = Token.objects.filter(user=request.user).only("created").first()
    return render(request, "annotations/api/token.html", {"token": token, "new_key": key}, status=201)


@login_required
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    if revoke_token(request.user):
        messages.success(request, "Your API token is revoked. Requests that use it are refused from now on.")
    else:
        messages.error(request, "You have no API token to revoke.")
    return redirect("api:token")
