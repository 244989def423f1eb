from __future__ import annotations

import pytest
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The shared user fixtures hash passwords; the default hasher costs ~0.3 s a user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def client_for():
    """Factory: ``client_for(user)`` is an API client logged in as *user*; ``client_for()`` is anonymous."""

    def make(user=None) -> APIClient:
        api = APIClient()
        if user is not None:
            api.force_authenticate(user)
        return api

    return make
