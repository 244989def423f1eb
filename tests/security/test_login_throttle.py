"""Finding 12: repeated wrong passwords lock the login out for a while, even with the right one."""

from __future__ import annotations

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"


def attempt(client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_the_right_password_is_refused_after_repeated_failures(client, user):
    codes = [attempt(client, "ann", "wrong").status_code for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert codes[:-1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)  # the form again, with its error
    locked = attempt(client, "ann", "pw-ann-12345")
    assert locked.status_code == 429 and "Too many failed logins" in locked.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_lock_is_per_user_and_address(client, user, other_user):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        attempt(client, "ann", "wrong")
    assert attempt(client, "bob", "pw-bob-12345").status_code == 302  # another account
    client.logout()
    assert attempt(client, "ann", "pw-ann-12345", ip="10.0.0.2").status_code == 302  # another address


def test_a_forwarded_for_header_does_not_pick_a_fresh_address(client, user):
    for i in range(settings.AXES_FAILURE_LIMIT):
        client.post(LOGIN, {"username": "ann", "password": "wrong"}, REMOTE_ADDR="10.0.0.1",
                    HTTP_X_FORWARDED_FOR=f"203.0.113.{i}")
    locked = client.post(LOGIN, {"username": "ann", "password": "pw-ann-12345"}, REMOTE_ADDR="10.0.0.1",
                         HTTP_X_FORWARDED_FOR="203.0.113.99")
    assert locked.status_code == 429


def test_a_success_before_the_limit_resets_the_count(client, user):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, "ann", "wrong")
    assert attempt(client, "ann", "pw-ann-12345").status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, "ann", "wrong")
    assert attempt(client, "ann", "pw-ann-12345").status_code == 302


def test_force_login_is_unaffected(client, user):
    client.force_login(user)
    assert client.get("/").status_code == 200
