"""The portal's shared fixtures that need Django: users in each role, and the clean-ups every database test gets.

Loaded as a plugin by ``tests/conftest.py`` only when pytest-django is active, so the pure packages' tests
(``tests/bidsdata``) run with ``-p no:django`` and never import Django (see ``tests/bidsdata/test_no_django.py``).
"""

from __future__ import annotations

import pytest
from asgiref.sync import SyncToAsync
from django.contrib.auth.models import Group
from django.db import connections


@pytest.fixture(autouse=True)
def _close_worker_thread_connections():
    """Async tests reach the database from asgiref's worker thread; close that thread's
    connections afterwards so PostgreSQL can drop the test database at the end."""
    yield
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True)
def _answers_settled():
    """An answer's drain runs on the answers thread after its test's last line; let it end (bounded) before
    the test's database is emptied, so it neither writes into the next test nor deadlocks the flush. Then the
    notes the test left (of projects about to be emptied) are forgotten, and the next test drains on a thread
    of its own."""
    yield
    from annotations.datasets import answers

    answers.settle(timeout=30)
    answers.reset()


@pytest.fixture(autouse=True)
def _background_settled():
    """Work a page queued on the runs' thread pool (a sidecar validated in the background) may outlive its
    test's last line; let it end (bounded) before the database is emptied: a flush waiting on its row locks
    deadlocks on PostgreSQL."""
    yield
    from annotations.runs.backends import ThreadPoolBackend

    ThreadPoolBackend.settle_all(timeout=20)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate limits count in the cache, keyed by user id; ids repeat across tests, so each starts clean."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ann", password="pw-ann-12345")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-12345")


@pytest.fixture
def reviewer(django_user_model):
    reviewer = django_user_model.objects.create_user("rev", password="pw-rev-12345")
    group, _ = Group.objects.get_or_create(name="reviewers")
    reviewer.groups.add(group)
    return reviewer


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", password="pw-staff-12345", is_staff=True)
