"""Stimulus images are served only to those who may see their session."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotations.models import AnnotationSession

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@pytest.fixture
def session_with_image(settings, tmp_path, user) -> AnnotationSession:
    settings.MEDIA_ROOT = tmp_path
    session = AnnotationSession(user=user, description="A red circle.", schema_version="8.4.0")
    session.image = SimpleUploadedFile("stim.png", PNG, content_type="image/png")
    session.save()
    return session


def test_owner_gets_the_image_and_the_page_points_to_it(client, user, session_with_image) -> None:
    client.force_login(user)
    url = reverse("annotations:session-image", args=[session_with_image.pk])
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content) == PNG
    page = client.get(session_with_image.get_absolute_url()).content.decode()
    assert f'src="{url}"' in page and "/media/" not in page


def test_others_and_anonymous_do_not(client, other_user, reviewer, session_with_image) -> None:
    url = reverse("annotations:session-image", args=[session_with_image.pk])
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    client.force_login(reviewer)
    assert client.get(url).status_code == 200


def test_no_image_is_404(client, user) -> None:
    session = AnnotationSession.objects.create(user=user, description="x", schema_version="8.4.0")
    client.force_login(user)
    assert client.get(reverse("annotations:session-image", args=[session.pk])).status_code == 404
