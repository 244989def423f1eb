"""The pages' one translation of request errors: what a page shows itself (on its form, as a message, kept for
its own use) and what every page view lets through to ``RequestErrorMiddleware`` (its status and message)."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.test import RequestFactory
from django.urls import reverse

from annotations.errors import (
    Conflict,
    FieldError,
    Forbidden,
    NotFound,
    QuotaExceeded,
    RequestError,
    as_message,
    as_request_error,
    caught,
    on_form,
)
from annotations.models import SessionStatus
from bidsdata.errors import DatasetError
from hedit_site.middleware import RequestErrorMiddleware
from tests.support.reviews import make_session

HTMX = {"HTTP_HX_REQUEST": "true"}


def page_request(*, htmx: bool = False):
    request = RequestFactory().post("/somewhere/", **(HTMX if htmx else {}))
    request.htmx = htmx  # what django-htmx's middleware sets
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def translate(exc: Exception, *, htmx: bool = False):
    return RequestErrorMiddleware(lambda request: None).process_exception(page_request(htmx=htmx), exc)


def test_every_exception_is_read_once_as_a_request_error_or_left_alone():
    upload = as_request_error(DatasetError("no onset column", path="a_events.tsv"))
    assert (upload.status, upload.field, upload.message) == (400, "files", "a_events.tsv: no onset column")
    rule = as_request_error(PermissionError("only the run's owner can ask for a review"))
    assert isinstance(rule, Forbidden) and rule.status == 403
    conflict = Conflict("Already being annotated.")
    assert as_request_error(conflict) is conflict
    assert as_request_error(PermissionError(13, "Permission denied", "/var/x")) is None  # the operating system's
    assert as_request_error(ValueError("a bug")) is None


@pytest.mark.django_db
@pytest.mark.parametrize(("exc", "status"), [
    (RequestError("Nothing to do."), 400),
    (Conflict("this dataset is already being annotated"), 409),
    (FieldError("files", "no events file in the upload"), 400),
])
def test_a_page_answers_with_the_status_and_the_message_as_a_sentence(exc, status):
    response = translate(exc)
    assert response.status_code == status
    assert f'<p class="lede" id="request-error">{exc.message[0].upper()}{exc.message[1:].rstrip(".")}.' \
        in response.content.decode()


@pytest.mark.django_db
def test_refusals_use_the_sites_own_pages():
    refused = translate(PermissionError("only the run's owner can ask for a review"))
    assert refused.status_code == 403 and "Only the run&#x27;s owner can ask for a review." in refused.content.decode()
    assert translate(NotFound("No such level.")).status_code == 404


def test_htmx_gets_the_message_as_text_swapped_nowhere():
    response = translate(Conflict("already being annotated"), htmx=True)
    assert response.status_code == 409 and response.content.decode() == "Already being annotated."
    assert response["HX-Reswap"] == "none" and response["Content-Type"].startswith("text/plain")


@pytest.mark.django_db
def test_a_quota_says_when_to_come_back():
    response = translate(QuotaExceeded("You have started 2 runs recently.", retry_after=90))
    assert response.status_code == 429 and response["Retry-After"] == "90"


def test_errors_not_ours_go_on():
    assert translate(ValueError("a bug")) is None
    assert translate(PermissionError(13, "Permission denied", "/var/x")) is None


def test_a_form_shows_the_error_beside_its_field_and_a_refused_upload_beside_files():
    class Form(forms.Form):
        files = forms.CharField(required=False)

    form = Form({})
    assert form.is_valid()
    with on_form(form) as outcome:
        raise DatasetError("no onset column", path="a_events.tsv")
    assert outcome.failed and outcome.status == 400
    assert form.errors == {"files": ["a_events.tsv: no onset column"]}
    with on_form(form) as fine:
        pass
    assert not fine.failed and fine.status == 200 and fine.message == ""


def test_a_message_is_flashed_but_a_refusal_goes_on_to_the_status_page():
    request = page_request()
    with as_message(request) as outcome:
        raise Conflict("this dataset is already being annotated")
    assert outcome.status == 409
    assert [m.message for m in get_messages(request)] == ["This dataset is already being annotated."]
    with pytest.raises(Forbidden), as_message(request):
        raise Forbidden("Only the project's owner can start its runs.")
    with pytest.raises(NotFound), as_message(request):
        raise NotFound("No such level.")


def test_caught_keeps_only_the_kinds_asked_for_and_never_a_bug():
    with caught(Conflict) as outcome:
        raise Conflict("busy")
    assert outcome.message == "Busy."
    with pytest.raises(QuotaExceeded), caught(Conflict):
        raise QuotaExceeded("later", retry_after=5)
    with pytest.raises(KeyError), caught():
        raise KeyError("a bug")


# --- through a page view ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_view_that_lets_an_error_through_answers_its_status_not_a_500(client, user, reviewer):
    running = make_session(user, status=SessionStatus.RUNNING, annotation="")
    url = reverse("annotations:review-request", args=[running.pk])
    client.force_login(user)
    page = client.post(url)
    assert page.status_code == 400 and 'id="request-error"' in page.content.decode()
    assert "Only finished sessions with an annotation can be reviewed" in page.content.decode()
    fragment = client.post(url, **HTMX)
    assert fragment.status_code == 400 and fragment["HX-Reswap"] == "none"
    client.force_login(reviewer)  # sees the run, may not ask for its review: the rule's PermissionError
    refused = client.post(reverse("annotations:review-request", args=[make_session(user).pk]))
    assert refused.status_code == 403 and "Only the run&#x27;s owner can ask for a review." in refused.content.decode()
