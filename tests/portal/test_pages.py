"""The annotate, session, validate and login pages through Django's test client."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotations.models import AnnotationSession, SessionStatus
from tests.support.runs import add_steps, make_session

pytestmark = pytest.mark.django_db

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4"
       b"\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")


def annotate_data(**overrides: object) -> dict[str, object]:
    data = {"description": "A red circle appears and the participant presses the left button.",
            "schema_version": "8.4.0", "max_validation_attempts": "3"}
    data.update(overrides)
    return data


@pytest.mark.parametrize("name, method", [("annotations:annotate", "get"), ("annotations:history", "get"),
                                          ("annotations:validate", "get"), ("annotations:validate-check", "post"),
                                          ("annotations:annotate", "post")])
def test_pages_need_login(client, name: str, method: str) -> None:
    url = reverse(name)
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


def test_session_pages_need_login(client, user) -> None:
    session = make_session(user)
    for url, method in [(session.get_absolute_url(), "get"),
                        (reverse("annotations:session-cancel", args=[session.pk]), "post"),
                        (reverse("annotations:session-rerun", args=[session.pk]), "post")]:
        response = getattr(client, method)(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_login_page_and_logout_form(client, user) -> None:
    page = client.get(reverse("login")).content.decode()
    assert 'name="username"' in page and 'name="password"' in page and "<label" in page
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    # Logout must be a POST form (Django 5 refuses GET logout).
    assert re.search(r'<form method="post" action="/accounts/logout/">', page)
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("annotations:annotate")).status_code == 302


def test_annotate_form_fields(client, user) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert 'id="annotate-form"' in page and 'enctype="multipart/form-data"' in page
    assert re.search(r'<textarea name="description"', page)
    assert re.search(r'<option value="8\.4\.0" selected>', page)
    assert 'name="max_validation_attempts"' in page and 'name="run_assessment"' in page
    assert 'name="no_extend"' in page
    assert re.search(r'<input type="file" name="image"[^>]*accept="image/png,image/jpeg"', page)
    for field in ("description", "schema_version", "max_validation_attempts", "image"):
        assert f'<label for="id_{field}">' in page


def test_nav_links_by_role(client, user, reviewer, staff) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    for link in (reverse("annotations:history"), reverse("annotations:validate"), "/api/docs/"):
        assert f'href="{link}"' in page
    assert "Review queue" not in page and 'href="/admin/"' not in page
    client.force_login(reviewer)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert "Review queue" in page and 'href="/admin/"' not in page
    client.force_login(staff)
    assert 'href="/admin/"' in client.get(reverse("annotations:annotate")).content.decode()


def test_annotate_stores_queues_and_redirects(client, user, django_capture_on_commit_callbacks) -> None:
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(reverse("annotations:annotate"),
                               annotate_data(run_assessment="on", no_extend="on", max_validation_attempts="4"))
    session = AnnotationSession.objects.get()
    assert response.status_code == 302 and response["Location"] == session.get_absolute_url()
    assert session.user == user and session.status == SessionStatus.QUEUED
    assert session.options["run_assessment"] is True and session.options["no_extend"] is True
    assert session.options["max_validation_attempts"] == 4
    assert len(callbacks) == 1  # the run is enqueued once the row is committed


def test_annotate_with_image(client, user, django_capture_on_commit_callbacks, settings, tmp_path) -> None:
    settings.MEDIA_ROOT = tmp_path
    # An image needs a vision model (tests/portal/test_images_need_a_vision_model.py: refused without one).
    settings.HEDIT_LLM = {"BASE_URL": "http://server.example/v1", "MODEL": "m", "AGENT_MODELS": {"vision": "eyes"}}
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(reverse("annotations:annotate"),
                               annotate_data(image=SimpleUploadedFile("s.png", PNG, content_type="image/png")))
    assert response.status_code == 302
    assert AnnotationSession.objects.get().image.name.endswith(".png")


@pytest.mark.parametrize("overrides, message", [
    ({"description": "   "}, "The description is empty"),
    ({"description": "x" * 5001}, "the limit is 5000"),
    ({"schema_version": "9.9.9"}, "9.9.9 is not one of the available choices"),
    ({"max_validation_attempts": "0"}, "greater than or equal to 1"),
])
def test_annotate_bad_input_is_400_and_stores_nothing(client, user, overrides, message) -> None:
    client.force_login(user)
    response = client.post(reverse("annotations:annotate"), annotate_data(**overrides))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert 'id="annotate-form"' in response.content.decode()
    assert not AnnotationSession.objects.exists()


def test_annotate_rejects_a_non_image(client, user, settings, tmp_path) -> None:
    settings.MEDIA_ROOT = tmp_path
    client.force_login(user)
    fake = SimpleUploadedFile("s.png", b"GIF89a not really", content_type="image/png")
    response = client.post(reverse("annotations:annotate"), annotate_data(image=fake))
    assert response.status_code == 400 and "PNG or JPEG" in response.content.decode()
    assert not AnnotationSession.objects.exists()


def test_session_page_renders_everything_stored(client, user) -> None:
    session = make_session(user, status=SessionStatus.RUNNING)
    add_steps(session, 4)
    client.force_login(user)
    page = client.get(session.get_absolute_url()).content.decode()
    seqs = re.findall(r'<li id="step-(\d+)"', page)
    assert seqs == ["1", "2", "3", "4"]
    assert "TAG_INVALID" in page and "Use a tag that exists in the schema." in page  # error with its hint
    assert "Replace Blorp-tag." in page  # feedback
    assert 'data-status="running"' in page
    # The socket asks only for what the page does not already show.
    assert f'ws-connect="/ws/sessions/{session.pk}/?after=4"' in page
    assert 'id="cancel-button"' in page and 'id="rerun-button"' not in page


def test_finished_session_shows_annotation_with_descriptions(client, user) -> None:
    session = make_session(user, status=SessionStatus.SUCCEEDED, machine_annotation="Sensory-event, Red",
                           final_annotation="Sensory-event, (Red, Circle)", is_valid=True, llm_call_count=3,
                           prompt_tokens=1200, completion_tokens=34, cost_usd="0.012300")
    client.force_login(user)
    page = client.get(session.get_absolute_url()).content.decode()
    assert 'data-status="succeeded"' in page and "ws-connect" not in page
    assert re.search(r'<span class="hed-tag" title="A ring-shaped structure[^"]*">Circle</span>', page)
    assert 'data-copy-text="Sensory-event, (Red, Circle)"' in page
    assert "Machine annotation" in page  # machine and corrected annotations differ
    assert "1,234" in page and "$0.0123" in page
    assert 'id="rerun-button"' in page and 'id="cancel-button"' not in page


def test_users_cannot_open_each_others_sessions(client, user, other_user, reviewer, staff) -> None:
    session = make_session(user)
    client.force_login(other_user)
    assert client.get(session.get_absolute_url()).status_code == 404
    assert client.post(reverse("annotations:session-cancel", args=[session.pk])).status_code == 404
    for viewer in (reviewer, staff, user):
        client.force_login(viewer)
        assert client.get(session.get_absolute_url()).status_code == 200


def test_cancel_a_running_and_a_queued_run(client, user) -> None:
    running = make_session(user, status=SessionStatus.RUNNING)
    queued = make_session(user)
    client.force_login(user)
    assert client.get(reverse("annotations:session-cancel", args=[running.pk])).status_code == 405
    response = client.post(reverse("annotations:session-cancel", args=[running.pk]))
    assert response.status_code == 302 and response["Location"] == running.get_absolute_url()
    running.refresh_from_db()
    assert running.cancel_requested and running.status == SessionStatus.RUNNING  # the run stops itself
    client.post(reverse("annotations:session-cancel", args=[queued.pk]))
    queued.refresh_from_db()
    assert queued.status == SessionStatus.CANCELLED


def test_only_the_owner_or_staff_cancels(client, user, reviewer) -> None:
    session = make_session(user, status=SessionStatus.RUNNING)
    client.force_login(reviewer)
    assert client.post(reverse("annotations:session-cancel", args=[session.pk])).status_code == 403
    session.refresh_from_db()
    assert not session.cancel_requested


def test_rerun_a_finished_run(client, user, django_capture_on_commit_callbacks) -> None:
    old = make_session(user, status=SessionStatus.FAILED, interrupted=True, error="interrupted by a server stop")
    client.force_login(user)
    page = client.get(old.get_absolute_url()).content.decode()
    assert "Interrupted by a server stop" in page and 'id="rerun-button"' in page
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(reverse("annotations:session-rerun", args=[old.pk]))
    new = AnnotationSession.objects.exclude(pk=old.pk).get()
    assert response["Location"] == new.get_absolute_url()
    assert new.description == old.description and new.options == old.options and new.status == "queued"
    assert len(callbacks) == 1


def test_rerun_refused_while_running(client, user) -> None:
    session = make_session(user, status=SessionStatus.RUNNING)
    client.force_login(user)
    client.post(reverse("annotations:session-rerun", args=[session.pk]))
    assert AnnotationSession.objects.count() == 1


def test_validate_page(client, user) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:validate")).content.decode()
    assert 'hx-post="/validate/check/"' in page and 'hx-trigger="input changed delay:400ms' in page
    # Without JavaScript the form posts to the page itself.
    response = client.post(reverse("annotations:validate"), {"hed": "Sensory-event, Blorp-tag",
                                                              "schema_version": "8.4.0"})
    assert response.status_code == 200 and "TAG_INVALID" in response.content.decode()


def test_validate_check_fragment(client, user) -> None:
    client.force_login(user)
    url = reverse("annotations:validate-check")
    ok = client.post(url, {"hed": "Sensory-event, (Red, Circle)", "schema_version": "8.4.0"})
    assert ok.status_code == 200 and "Valid HED for schema 8.4.0" in ok.content.decode()
    assert "<html" not in ok.content.decode()
    bad = client.post(url, {"hed": "Sensory-event, Blorp-tag", "schema_version": "8.4.0"}).content.decode()
    assert "TAG_INVALID" in bad and "Hint:" in bad and 'data-valid="false"' in bad
    extended = {"hed": "Sensory-event, Item/Blorp", "schema_version": "8.4.0"}
    assert 'data-valid="true"' in client.post(url, extended).content.decode()
    assert 'data-valid="false"' in client.post(url, {**extended, "no_extend": "on"}).content.decode()
    unknown = client.post(url, {"hed": "Red", "schema_version": "9.9.9"})
    assert unknown.status_code == 400 and "9.9.9" in unknown.content.decode()


def test_a_400_fragment_is_never_turned_into_a_debug_page(client, user, settings) -> None:
    """Our 400 answers are fragments naming bad input; django-htmx's DEBUG helper would replace the page."""
    settings.DEBUG = True
    client.force_login(user)
    html = client.get(reverse("annotations:annotate")).content.decode()
    assert "htmx-2.min.js" in html and "hx-ws-2.min.js" in html
    assert "django-htmx.js" not in html
