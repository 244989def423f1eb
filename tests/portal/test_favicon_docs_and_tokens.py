"""The favicon, API docs inside the site's layout, and the token page: shown once, usable, revocable,
changed only by POST with CSRF, behind a login."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_favicon_is_linked_served_and_ico_redirects(client, user) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert re.search(r'<link rel="icon" href="/static/favicon\.svg"', page)
    assert finders.find("favicon.svg")
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"


def test_api_docs_need_a_login_and_sit_in_the_sites_layout(client, user) -> None:
    docs = reverse("api:docs")
    response = client.get(docs)
    assert response.status_code == 302 and "login" in response["Location"]
    client.force_login(user)
    page = client.get(docs).content.decode()
    assert 'class="site-nav"' in page and f'href="{docs}" aria-current="page"' in page
    assert f'href="{reverse("api:token")}"' in page and "Create an API token" in page
    assert "<style" not in page


def test_a_token_is_shown_once_works_and_is_revoked(client, user) -> None:
    client.force_login(user)
    assert "You have no token." in client.get(reverse("api:token")).content.decode()
    created = client.post(reverse("api:token-create"))
    assert created.status_code == 201 and "no-store" in created["Cache-Control"]
    key = Token.objects.get(user=user).key
    assert key in created.content.decode() and "not shown again" in created.content.decode()
    assert 'aria-current="page">API docs<' in created.content.decode()
    again = client.get(reverse("api:token")).content.decode()
    assert key not in again and "You have a token" in again

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/sessions/").status_code == 200

    # One token per user: a second create is refused and the first stays.
    refused = client.post(reverse("api:token-create"), follow=True).content.decode()
    assert "You already have a token. Revoke it first to create a new one." in refused
    assert Token.objects.filter(user=user).count() == 1

    revoked = client.post(reverse("api:token-revoke"), follow=True).content.decode()
    assert "Your API token is revoked." in revoked and not Token.objects.filter(user=user).exists()
    assert api.get("/api/sessions/").status_code == 401


def test_token_changes_are_post_only_with_csrf(user) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get(reverse("api:token-create")).status_code == 405
    assert client.get(reverse("api:token-revoke")).status_code == 405
    assert client.post(reverse("api:token-create")).status_code == 403
    assert not Token.objects.exists()
    page = client.get(reverse("api:token")).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert client.post(reverse("api:token-create"), {"csrfmiddlewaretoken": csrf}).status_code == 201


def test_the_token_page_needs_a_login(client) -> None:
    assert client.get(reverse("api:token")).status_code == 302
    assert client.post(reverse("api:token-create")).status_code == 302
    assert not Token.objects.exists()
