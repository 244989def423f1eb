"""One family of request errors carrying field and status, translated for the API in one handler and for
the pages by one helper."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django import forms
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotations.api.exceptions import exception_handler
from annotations.errors import (
    Conflict,
    FieldError,
    Forbidden,
    NotFound,
    QuotaExceeded,
    RequestError,
    show_on_form,
)
from annotations.runs.services import build_options, create_session
from bidsdata.errors import DatasetError
from bidsdata.limits import LimitExceeded

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def answer(exc: Exception):
    return exception_handler(exc, {})


@pytest.mark.parametrize(("exc", "status", "body"), [
    (FieldError("kind", "kind must be one of categorical, value, skip"), 400,
     {"kind": ["kind must be one of categorical, value, skip"]}),
    (RequestError("Description is empty.", field="description"), 400, {"description": ["Description is empty."]}),
    (RequestError("Nothing to do."), 400, {"non_field_errors": ["Nothing to do."]}),
    (Forbidden("Only reviewers can review."), 403, {"detail": "Only reviewers can review."}),
    (NotFound("No such level."), 404, {"detail": "No such level."}),
    (Conflict("Already being annotated."), 409, {"detail": "Already being annotated."}),
    (FieldError("status", "this dataset is already being annotated", status=409), 409,
     {"detail": "this dataset is already being annotated"}),
    (DatasetError("no onset column", path="a_events.tsv"), 400, {"files": ["a_events.tsv: no onset column"]}),
    (LimitExceeded("201 columns", "max_columns", 200), 400,
     {"files": ["201 columns, more than the limit of 200 (HEDIT_UPLOAD_MAX_COLUMNS)"]}),
    (PermissionError("only the run's owner can ask for a review"), 403,
     {"detail": "only the run's owner can ask for a review"}),
])
def test_each_error_maps_to_its_status_and_body(exc, status, body):
    response = answer(exc)
    assert response.status_code == status
    assert response.data == body


def test_a_quota_is_a_429_with_retry_after():
    response = answer(QuotaExceeded("You have started 2 runs recently; the limit is 2 per hour.", retry_after=90))
    assert response.status_code == 429 and response["Retry-After"] == "90"
    assert str(response.data["detail"]).startswith("You have started 2 runs recently")


def test_errors_not_ours_go_on_to_drf():
    assert answer(PermissionError(13, "Permission denied", "/var/x")) is None  # the operating system's
    assert answer(ValueError("a bug")) is None


def test_run_errors_name_their_field(user):
    def field_of(**kwargs):
        with pytest.raises(RequestError) as caught:
            options = build_options(kwargs.pop("options", {}))
            create_session(user=user, options=options, **kwargs)
        return caught.value.field

    assert field_of(description="") == "description"
    assert field_of(description="x" * 5001) == "description"
    assert field_of(description="ok", options={"schema_version": "9.9.9"}) == "schema_version"
    assert field_of(description="ok", options={"max_validation_attempts": 0}) == "max_validation_attempts"
    assert field_of(description="ok", options={"max_validation_attempts": "many"}) is None
    assert field_of(description="ok", image=SimpleUploadedFile("s.gif", b"GIF89a")) == "image"


def test_pages_show_an_error_beside_its_field():
    class Form(forms.Form):
        description = forms.CharField(required=False)

    form = Form({})
    assert form.is_valid()
    assert show_on_form(form, RequestError("Description is empty.", field="description")) == 400
    assert show_on_form(form, QuotaExceeded("Try again later.", retry_after=5)) == 429
    assert show_on_form(form, FieldError("elsewhere", "Not a field of this form.")) == 400
    assert form.errors == {"description": ["Description is empty."],
                           "__all__": ["Try again later.", "Not a field of this form."]}


def test_the_api_names_the_option_at_fault(user):
    api = APIClient()
    api.force_authenticate(user)
    bad = api.post("/api/sessions/", {"description": "ok", "options": {"max_validation_attempts": 99}}, format="json")
    assert bad.status_code == 400 and list(bad.json()) == ["options"]
    bad = api.post("/api/sessions/", {"description": "ok", "options": {"schema_version": "0.0.1"}}, format="json")
    assert bad.status_code == 400 and list(bad.json()) == ["schema_version"]


def test_the_dataset_reader_stays_free_of_django():
    code = ("import sys; import bidsdata.errors, bidsdata.limits; "
            "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stdout.strip() == "[]"
