from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The shared user fixtures hash passwords; the default hasher costs ~0.3 s a user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
