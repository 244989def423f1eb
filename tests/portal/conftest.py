import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The default PBKDF2 costs ~0.5 s per user on this machine; the hash strength is not under test here.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
