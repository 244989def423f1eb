"""Scale-out sessions: read from the shared Redis cache, so a page makes no session trip to the database
(the history page under load waits on every trip), yet kept in the database and ended everywhere at logout."""

from __future__ import annotations

import importlib
import os
import uuid

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import reverse

REDIS_URL = os.environ.get("HEDIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/12")


def _redis_or_skip() -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError:
        if os.environ.get("CI"):
            raise
        pytest.skip("Redis is not running on 127.0.0.1:6379")


def test_scale_out_settings_keep_sessions_in_the_shared_cache(monkeypatch):
    import hedit_site.settings as site_settings

    monkeypatch.setenv("REDIS_URL", REDIS_URL)
    try:
        scaled = importlib.reload(site_settings)
        assert scaled.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
        alias = scaled.CACHES[scaled.SESSION_CACHE_ALIAS]
        assert alias["BACKEND"].endswith("RedisCache") and alias["LOCATION"] == REDIS_URL
        assert "LocMemCache" in scaled.CACHES["default"]["BACKEND"], "the app's own cache stays per process"
    finally:
        monkeypatch.delenv("REDIS_URL")
        embedded = importlib.reload(site_settings)
    assert embedded.SESSION_ENGINE == "django.contrib.sessions.backends.db"


@pytest.mark.django_db
def test_a_signed_in_page_reads_its_session_without_a_database_trip(client, user):
    _redis_or_skip()
    caches = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
              "sessions": {"BACKEND": "hedit_site.cache.SharedPoolRedisCache", "LOCATION": REDIS_URL,
                           "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    with override_settings(CACHES=caches, SESSION_ENGINE="django.contrib.sessions.backends.cached_db",
                           SESSION_CACHE_ALIAS="sessions"):
        client.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("annotations:history")).status_code == 200
        assert not [q for q in queries.captured_queries if "django_session" in q["sql"]], queries.captured_queries
        client.logout()
        assert client.get(reverse("annotations:history")).status_code == 302, "a logout ends the cached session too"


def test_the_session_cache_shares_one_redis_pool_across_requests():
    # Django makes a cache object per request under ASGI; each one's own pool meant a new Redis connection
    # (five round trips) for every page's session read.
    _redis_or_skip()
    from hedit_site.cache import SharedPoolRedisCache

    prefix = f"test-{uuid.uuid4().hex}"
    one, two = (SharedPoolRedisCache(REDIS_URL, {"KEY_PREFIX": prefix}) for _ in range(2))
    one.set("k", "v", 30)
    assert two.get("k") == "v"
    pool = one._cache.get_client().connection_pool
    assert two._cache.get_client().connection_pool is pool
    other = SharedPoolRedisCache(REDIS_URL.rsplit("/", 1)[0] + "/13", {"KEY_PREFIX": prefix})
    assert other._cache.get_client().connection_pool is not pool, "another server or database: a pool of its own"
    one.delete("k")
