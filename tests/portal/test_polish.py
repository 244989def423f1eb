"""Reviews a lab can trust: images need a vision model, a favicon, API docs with a token page,
history page sizes and totals, no token or cost noise for offline runs, capitalised messages,
a compact mobile menu."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agents.state import WorkflowOptions
from annotations.errors import RequestError
from annotations.models import AnnotationSession, SessionStatus
from annotations.runs.services import build_options, create_session
from tests.portal.factories import make_session

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
HISTORY = "/sessions/"
DASH = "\u2013"  # the en dash of "1-50 of N"
SERVER = {"BASE_URL": "http://server.example/v1", "MODEL": "server-model"}


def png() -> SimpleUploadedFile:
    return SimpleUploadedFile("stim.png", PNG, content_type="image/png")


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def annotate_data(**overrides):
    data = {"description": "", "schema_version": "8.4.0", "max_validation_attempts": "3"}
    data.update(overrides)
    return data


# --- images need a vision model -------------------------------------------------------------

@pytest.mark.parametrize("server", [{}, SERVER], ids=["offline", "server-without-vision-model"])
def test_an_image_without_a_vision_model_is_refused_by_the_form(client, user, media, settings, server) -> None:
    settings.HEDIT_LLM = dict(server)
    client.force_login(user)
    response = client.post(reverse("annotations:annotate"), annotate_data(image=png()))
    assert response.status_code == 400
    page = response.content.decode()
    assert "Image descriptions need a vision model, and none is configured." in page
    assert not AnnotationSession.objects.exists() and not any(media.rglob("*.png"))


def test_the_annotate_form_says_up_front_that_images_need_a_vision_model(client, user, settings) -> None:
    settings.HEDIT_LLM = {}
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert "Needs a vision model, and none is configured" in page
    settings.HEDIT_LLM = {**SERVER, "AGENT_MODELS": {"vision": "eyes"}}
    assert "described by eyes" in client.get(reverse("annotations:annotate")).content.decode()


def test_an_image_without_a_vision_model_is_refused_by_the_api(user, media, settings) -> None:
    settings.HEDIT_LLM = dict(SERVER)
    api = APIClient()
    api.force_authenticate(user)
    response = api.post("/api/sessions/", {"description": "", "image": png()}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"image": ["Image descriptions need a vision model, and none is configured. Set a "
                                         "vision model on the LLM settings page, or describe the event in words."]}
    assert not AnnotationSession.objects.exists()


def test_an_image_with_a_vision_model_is_accepted_by_form_and_api(client, user, media, settings,
                                                                   django_capture_on_commit_callbacks) -> None:
    settings.HEDIT_LLM = {**SERVER, "AGENT_MODELS": {"vision": "eyes"}}
    client.force_login(user)
    api = APIClient()
    api.force_authenticate(user)
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(reverse("annotations:annotate"), annotate_data(image=png())).status_code == 302
        assert api.post("/api/sessions/", {"image": png()}, format="multipart").status_code == 201
    assert [bool(s.image) for s in AnnotationSession.objects.all()] == [True, True]


def test_a_users_own_vision_model_counts(user, media, settings) -> None:
    from annotations.models import UserLLMSettings

    settings.HEDIT_LLM = dict(SERVER)
    with pytest.raises(RequestError, match="vision model"):
        create_session(user=user, description="", options=WorkflowOptions(), image=png())
    UserLLMSettings.objects.create(user=user, base_url="https://mine.example/v1", model="m",
                                   agent_models={"vision": "my-eyes"})
    assert create_session(user=user, description="", options=WorkflowOptions(), image=png()).image


def test_rerunning_an_image_run_without_a_vision_model_is_refused(client, user, media, settings) -> None:
    settings.HEDIT_LLM = {}
    session = make_session(user, description="", status=SessionStatus.FAILED)
    session.image = png()
    session.save()
    client.force_login(user)
    page = client.post(reverse("annotations:session-rerun", args=[session.pk]), follow=True).content.decode()
    assert "Image descriptions need a vision model" in page
    assert AnnotationSession.objects.count() == 1


# --- favicon --------------------------------------------------------------------------------

def test_favicon_is_linked_served_and_ico_redirects(client, user) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert re.search(r'<link rel="icon" href="/static/favicon\.svg"', page)
    assert finders.find("favicon.svg")
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"


# --- API docs and token -----------------------------------------------------------------------

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


# --- history: page sizes and totals ---------------------------------------------------------

def sessions(user, count: int, **fields) -> None:
    now = timezone.now()
    made = AnnotationSession.objects.bulk_create(
        AnnotationSession(user=user, description=f"event {i}", schema_version="8.4.0", **fields) for i in range(count))
    for i, s in enumerate(made):
        AnnotationSession.objects.filter(pk=s.pk).update(created_at=now - dt.timedelta(minutes=i))


def row_count(response) -> int:
    return response.content.decode().count("<tr data-session=")


@pytest.mark.parametrize("size", [25, 50, 100, 200])
def test_history_page_sizes(client, user, size) -> None:
    sessions(user, 210)
    client.force_login(user)
    response = client.get(HISTORY, {"per_page": str(size), "status": "queued"})
    assert response.status_code == 200 and row_count(response) == size
    page = response.content.decode()
    assert f"1{DASH}{size} of 210" in page
    # The pager keeps the size (the default needs no parameter).
    size_query = "" if size == 50 else f"&amp;per_page={size}"
    assert f'href="?status=queued{size_query}&amp;page=2"' in page
    assert f'<strong aria-current="true">{size}</strong>' in page


def test_history_default_size_and_a_bad_size(client, user) -> None:
    sessions(user, 60)
    client.force_login(user)
    response = client.get(HISTORY)
    assert row_count(response) == 50 and f"1{DASH}50 of 60" in response.content.decode()
    assert f"51{DASH}60 of 60" in client.get(HISTORY, {"page": "2"}).content.decode()
    bad = client.get(HISTORY, {"per_page": "7"})
    assert bad.status_code == 400
    assert "Page size (per_page): &#x27;7&#x27; is not one of 25, 50, 100, 200." in bad.content.decode()


def test_history_total_is_exact_on_indexes_and_a_lower_bound_for_broad_searches(client, user, monkeypatch) -> None:
    monkeypatch.setattr("annotations.history.views.COUNT_LIMIT", 30)
    sessions(user, 80)
    client.force_login(user)
    assert f"1{DASH}50 of 80" in client.get(HISTORY).content.decode()  # COUNT on an index
    assert f"1{DASH}50 of 80" in client.get(HISTORY, {"status": "queued"}).content.decode()
    # A text search counts no further than COUNT_LIMIT matches: "more than", never a full count...
    assert f"1{DASH}50 of more than 50" in client.get(HISTORY, {"q": "event"}).content.decode()
    assert f"51{DASH}80 of 80" in client.get(HISTORY, {"q": "event", "page": "2"}).content.decode()  # the end
    # ...and a search with fewer matches is exact, newest first, from the same single scan.
    page = client.get(HISTORY, {"q": "event 1"}).content.decode()
    assert f"1{DASH}11 of 11" in page
    assert re.findall(r">(event 1\d?)</a>", page) == ["event 1", *[f"event {i}" for i in range(10, 20)]]


def test_a_short_history_is_counted_without_a_count_query(client, user) -> None:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    sessions(user, 7)
    client.force_login(user)
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(HISTORY, {"q": "event"}).content.decode()
    assert f"1{DASH}7 of 7" in page
    assert not any("COUNT(" in q["sql"].upper() for q in ctx.captured_queries)


# --- no token or cost noise for offline runs -------------------------------------------------

def test_history_hides_usage_columns_when_no_run_called_a_model(client, user) -> None:
    make_session(user, status=SessionStatus.SUCCEEDED)
    client.force_login(user)
    page = client.get(HISTORY).content.decode()
    assert ">Tokens<" not in page and ">Cost<" not in page and "$0.0000" not in page
    make_session(user, description="with a model", llm_call_count=2, prompt_tokens=100, completion_tokens=5,
                 cost_usd="0.01")
    page = client.get(HISTORY).content.decode()
    assert ">Tokens<" in page and "$0.0100" in page
    offline_row = re.search(r'<tr data-session="[^"]+">(?:(?!</tr>).)*A red circle appears(?:(?!</tr>).)*</tr>',
                            page, re.S)
    assert offline_row and 'data-label="Tokens">—<' in offline_row.group(0)


def test_run_page_usage_shows_tokens_and_cost_only_after_an_llm_call(client, user) -> None:
    offline = make_session(user, status=SessionStatus.SUCCEEDED)
    online = make_session(user, status=SessionStatus.SUCCEEDED, llm_call_count=3, prompt_tokens=1200,
                          completion_tokens=34, cost_usd="0.0123")
    client.force_login(user)
    usage = re.compile(r'<dl id="usage".*?</dl>', re.S)
    offline_usage = usage.search(client.get(offline.get_absolute_url()).content.decode()).group(0)
    assert "Tokens" not in offline_usage and "Cost" not in offline_usage and "LLM calls" in offline_usage
    online_usage = usage.search(client.get(online.get_absolute_url()).content.decode()).group(0)
    assert "1,234" in online_usage and "$0.0123" in online_usage


def test_exports_keep_their_usage_columns_for_offline_runs(client, user) -> None:
    make_session(user, status=SessionStatus.SUCCEEDED, final_annotation="Sensory-event", is_valid=True)
    client.force_login(user)
    response = client.get("/api/export/", {"format": "csv"})
    header = b"".join(response.streaming_content).decode().splitlines()[0]
    assert "tokens" in header and "cost_usd" in header


# --- messages -------------------------------------------------------------------------------

def is_sentence(text: str) -> bool:
    return bool(text) and text[0].isupper() and text.endswith(".")


@pytest.mark.parametrize(("description", "options", "image"), [
    ("", {}, None),
    ("x" * 5001, {}, None),
    ("ok", {"schema_version": "9.9.9"}, None),
    ("ok", {"max_validation_attempts": "many"}, None),
    ("ok", {"max_validation_attempts": 0}, None),
    ("ok", {}, b"GIF89a"),
    ("ok", {}, PNG),  # no vision model
])
def test_run_request_errors_are_sentences(user, media, description, options, image) -> None:
    with pytest.raises(RequestError) as caught:
        upload = SimpleUploadedFile("s.png", image, content_type="image/png") if image else None
        create_session(user=user, description=description, options=build_options(options), image=upload)
    assert is_sentence(str(caught.value)), str(caught.value)


@pytest.mark.parametrize("params", [{"status": "done"}, {"valid": "maybe"}, {"date_from": "yesterday"},
                                    {"min_rating": "9"}, {"q": "a\x00"}, {"page": "x"}, {"per_page": "3"}])
def test_history_filter_errors_are_sentences(client, user, params) -> None:
    client.force_login(user)
    page = client.get(HISTORY, params).content.decode()
    messages = re.findall(r'<ul class="form-errors"[^>]*>\s*<li>(.*?)</li>', page, re.S)
    assert messages and all(is_sentence(m) for m in messages), messages


def test_page_messages_in_the_code_are_sentences() -> None:
    pattern = re.compile(r'messages\.(?:success|error|info|warning)\(request, "([^"]+)"\)')
    found = [m for path in (ROOT / "annotations").rglob("*.py") for m in pattern.findall(path.read_text())]
    assert found and [m for m in found if not is_sentence(m)] == []


# --- compact mobile navigation ---------------------------------------------------------------

def test_narrow_screens_fold_the_navigation_behind_a_details_toggle(client, user) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert re.search(r'<details class="nav-toggle"><summary[^>]*>.*?Menu</summary></details>\s*<nav class="site-nav"',
                     page, re.S)
    css = (ROOT / "static/css/app.css").read_text()
    assert ".nav-toggle + .site-nav { display: none; }" in css
    assert ".site-header__inner:has(.nav-toggle[open]) .site-nav" in css
