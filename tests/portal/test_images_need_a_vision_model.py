"""Images need a vision model: the form says so up front, the form and the API refuse an image
without one, a user's own vision model counts, and Re-run of an image run is refused without one."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from agents.state import WorkflowOptions
from annotations.errors import RequestError
from annotations.models import AnnotationSession, SessionStatus
from annotations.runs.services import create_session
from tests.support.runs import make_session

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
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
