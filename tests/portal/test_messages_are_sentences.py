"""Error and page messages are sentences: a capital first, a full stop last."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.errors import RequestError
from annotations.runs.services import build_options, create_session

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
HISTORY = "/sessions/"


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


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
