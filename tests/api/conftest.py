from __future__ import annotations

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def client_for():
    """Factory: ``client_for(user)`` is an API client logged in as *user*; ``client_for()`` is anonymous."""

    def make(user=None) -> APIClient:
        api = APIClient()
        if user is not None:
            api.force_authenticate(user)
        return api

    return make
