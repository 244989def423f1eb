"""`manage.py export` and the export page, both with the history filters."""

from __future__ import annotations

import csv
import io
import json

import pytest
from asgiref.sync import async_to_sync
from django.core.handlers.asgi import ASGIRequest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotations.exports import formats as exports
from annotations.models import AnnotationSession
from annotations.review import services as reviews
from tests.support.reviews import make_session

pytestmark = pytest.mark.django_db


def run_export(*args: str) -> str:
    out = io.StringIO()
    call_command("export", *args, stdout=out)
    return out.getvalue()


def test_command_writes_csv_to_stdout_with_filters(user, other_user, reviewer):
    make_session(user, description="ann's invalid", status="invalid", is_valid=False)
    rated = make_session(user, description="ann's rated")
    make_session(other_user, description="bob's")
    reviews.submit_review(rated, reviewer, rating=5, verdict="accept")

    every = list(csv.DictReader(io.StringIO(run_export("--format", "csv"))))
    assert {r["description"] for r in every} == {"ann's invalid", "ann's rated", "bob's"}
    by_status = list(csv.DictReader(io.StringIO(run_export("--format", "csv", "--status", "invalid"))))
    assert [r["description"] for r in by_status] == ["ann's invalid"]
    by_user = list(csv.DictReader(io.StringIO(run_export("--format", "csv", "--user", "bob"))))
    assert [r["description"] for r in by_user] == ["bob's"]
    rated_only = list(csv.DictReader(io.StringIO(run_export("--format", "csv", "--min-rating", "4"))))
    assert [r["description"] for r in rated_only] == ["ann's rated"]
    by_q = list(csv.DictReader(io.StringIO(run_export("--format", "csv", "--q", "invalid"))))
    assert [r["description"] for r in by_q] == ["ann's invalid"]
    unrated = list(csv.DictReader(io.StringIO(run_export("--format", "csv", "--filter", "reviewed=unrated"))))
    assert {r["description"] for r in unrated} == {"ann's invalid", "bob's"}


def test_command_writes_jsonl_to_a_file(user, tmp_path):
    make_session(user, description="A face")
    out = tmp_path / "sessions.jsonl"
    call_command("export", "--format", "jsonl", "--out", str(out))
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["description"] for r in records] == ["A face"] and "steps" in records[0]
    with pytest.raises(CommandError):  # BIDS sidecars come from dataset projects now
        call_command("export", "--format", "bids", "--out", str(tmp_path / "events.json"))


def test_command_rejects_bad_filters_and_formats():
    with pytest.raises(CommandError, match="min_rating"):
        run_export("--format", "csv", "--min-rating", "7")
    with pytest.raises(CommandError):
        run_export("--format", "xlsx")
    with pytest.raises(CommandError, match="KEY=VALUE"):
        run_export("--format", "csv", "--filter", "nonsense")


def test_export_page_form_and_download(client, user, other_user):
    make_session(user, description="mine", status="invalid", is_valid=False)
    make_session(user, description="mine too")
    make_session(other_user, description="not mine")
    client.force_login(user)
    page = client.get(reverse("annotations:export"), {"status": "invalid"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="export-form"' in html and 'value="invalid" selected' in html  # filters carried over
    download = client.get(reverse("annotations:export"), {"format": "csv", "status": "invalid"})
    assert download.status_code == 200 and download.streaming
    rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert [r["description"] for r in rows] == ["mine"]


def test_export_page_errors_name_the_field(client, user):
    client.force_login(user)
    bad_format = client.get(reverse("annotations:export"), {"format": "xlsx"})
    assert bad_format.status_code == 400 and "field-error" in bad_format.content.decode()
    bad_filter = client.get(reverse("annotations:export"), {"format": "csv", "min_rating": "9"})
    assert bad_filter.status_code == 400
    assert client.logout() is None and client.get(reverse("annotations:export")).status_code == 302


def test_export_up_to_the_last_day_downloads(client, user):
    # The day after 9999-12-31 overflows: the bound used to raise out of the view (a 500).
    make_session(user, description="mine")
    client.force_login(user)
    for url in (reverse("annotations:export"), "/api/export/"):
        download = client.get(url, {"format": "csv", "date_to": "9999-12-31"})
        assert download.status_code == 200
        rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
        assert [r["description"] for r in rows] == ["mine"]


def test_asgi_download_is_an_async_stream(user):
    # Under ASGI a plain iterator would be read whole into memory before sending.
    for i in range(5):
        make_session(user, description=f"run {i}")
    scope = {"type": "http", "method": "GET", "path": "/api/export/", "query_string": b"format=csv",
             "headers": [], "server": ("testserver", 80)}
    request = ASGIRequest(scope, io.BytesIO())
    response = exports.export_response(request, exports.FORMATS["csv"], AnnotationSession.objects.all())
    assert response.is_async

    async def collect() -> bytes:
        return b"".join([chunk async for chunk in response.streaming_content])

    # async_to_sync, as a server does: the sync page reads run back in this thread (and its connection).
    rows = list(csv.DictReader(io.StringIO(async_to_sync(collect)().decode())))
    assert len(rows) == 5
