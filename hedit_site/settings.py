"""Settings for HEDit Portal, read from the environment with safe local defaults.

Embedded default: SQLite file, in-memory channel layer, runs in a thread pool
inside the web process.  Scale-out: set DATABASE_URL (PostgreSQL), REDIS_URL
(channel layer) and HEDIT_TASK_BACKEND=database with `manage.py hedit_worker`.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from hedit_site import install_secrets

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


HEDIT_SETTINGS_ERRORS: list[str] = []
"""Variables that hold no number where one is wanted: the settings load with the default meanwhile, and the
system checks report each one (annotations.E006), so ``manage.py check``, ``migrate`` and ``hedit_worker`` say
which and stop, instead of a traceback from this module."""


def env_number(name: str, default: float, kind: type[int] | type[float] = int) -> Any:
    """The whole number (or, with ``kind=float``, the number) in variable *name*; *default* when it is unset or
    empty, and when it is no such number, which is noted in :data:`HEDIT_SETTINGS_ERRORS`."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        HEDIT_SETTINGS_ERRORS.append(f"{name} must be {'a whole number' if kind is int else 'a number'}, "
                                     f"not {raw!r}")
        return default
    if kind is float and not math.isfinite(value):
        HEDIT_SETTINGS_ERRORS.append(f"{name} must be a finite number, not {raw!r}")
        return default
    return value


# Off unless asked for: `make run` asks for it on the developer's own machine.
DEBUG = env_bool("DJANGO_DEBUG", False)
# Per-install secrets (made on first start, mode 0600) live here unless the environment gives them.
HEDIT_STATE_DIR = Path(os.environ.get("HEDIT_STATE_DIR") or BASE_DIR / "var")
try:
    SECRET_KEY = install_secrets.secret_key(os.environ, HEDIT_STATE_DIR)
    # Users' stored API keys: the first key encrypts, every key decrypts (rotation).
    HEDIT_KEY_ENCRYPTION_KEYS = install_secrets.key_encryption_keys(os.environ, HEDIT_STATE_DIR)
except install_secrets.InstallSecretError as exc:
    raise ImproperlyConfigured(f"{exc} (DJANGO_SECRET_KEY, HEDIT_KEY_ENCRYPTION_KEYS or HEDIT_STATE_DIR)") from exc

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "axes",
    "annotations",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it answers for locked-out logins.
    "axes.middleware.AxesMiddleware",
    # A request error a page view lets through answers with its status and message (annotations.errors).
    "hedit_site.middleware.RequestErrorMiddleware",
    # Innermost, after everything that matters: makes the whole stack run in one thread (see its docstring).
    "hedit_site.middleware.OneThreadMiddleware",
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses logins while locked out; first, as axes asks
    "annotations.access.PermissionBackend",  # answers has_perm from one query per user; logs no one in
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "hedit_site.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "hedit_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_number("DATABASE_CONN_MAX_AGE", 0),
    )
}
DATABASE_POOL_SIZE = env_number("DATABASE_POOL_SIZE", 0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DATABASE_POOL_SIZE:
    # Scale-out: requests and sockets each borrow a connection briefly, from many threads; a pool
    # makes that a hand-over instead of a new PostgreSQL backend per call (needs conn_max_age 0).
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1, "max_size": DATABASE_POOL_SIZE, "timeout": 10}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the live page read while a background run writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20,
         "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )


DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "annotations:annotate"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TZ_NAME", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Set for `collectstatic` in production; unset, WhiteNoise serves straight from the app folders.
STATIC_ROOT = os.environ.get("DJANGO_STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = True
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("HEDIT_MEDIA_ROOT", BASE_DIR / "media"))

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": os.environ.get("HEDIT_CHANNEL_PREFIX", "hedit")},
        }
    }
    # Sessions read from Redis, written through to the database: every page saves a database trip (the
    # history page under load waits on each trip). Only with a cache every process shares, so a logout
    # in one process ends the session in all; the default cache stays per process.
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # One connection pool per process (Django's own backend opens one per request under ASGI).
        "sessions": {"BACKEND": "hedit_site.cache.SharedPoolRedisCache", "LOCATION": REDIS_URL,
                     "KEY_PREFIX": os.environ.get("HEDIT_CHANNEL_PREFIX", "hedit") + "-session"},
    }
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    SESSION_CACHE_ALIAS = "sessions"
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    SESSION_ENGINE = "django.contrib.sessions.backends.db"

HEDIT_TASK_BACKENDS = {
    "thread": "annotations.runs.backends.ThreadPoolBackend",
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
    "dummy": "django_tasks.backends.dummy.DummyBackend",
}
# An unknown name is reported by `manage.py check` and at start-up (annotations.E002); the thread pool
# stands in until then.
HEDIT_TASK_BACKEND = os.environ.get("HEDIT_TASK_BACKEND", "thread")
TASKS = {
    "default": {
        "BACKEND": HEDIT_TASK_BACKENDS.get(HEDIT_TASK_BACKEND, HEDIT_TASK_BACKENDS["thread"]),
        "OPTIONS": {"MAX_WORKERS": env_number("HEDIT_RUN_WORKERS", 2)}
        if HEDIT_TASK_BACKEND == "thread" else {},
    }
}
# A worker renews its run's lease every third of HEDIT_RUN_LEASE_SECONDS; a lapsed lease means the
# worker died, and `hedit_worker` (checking every HEDIT_RUN_SWEEP_SECONDS) queues the run again, at
# most HEDIT_RUN_MAX_ATTEMPTS starts in all, then fails it with the reason.
HEDIT_RUN_LEASE_SECONDS = env_number("HEDIT_RUN_LEASE_SECONDS", 60.0, float)
HEDIT_RUN_SWEEP_SECONDS = env_number("HEDIT_RUN_SWEEP_SECONDS", 15.0, float)
HEDIT_RUN_MAX_ATTEMPTS = env_number("HEDIT_RUN_MAX_ATTEMPTS", 3)

# Language models: unset base URL means the offline annotator.
HEDIT_LLM = {
    "PROVIDER": os.environ.get("HEDIT_LLM_PROVIDER", ""),
    "BASE_URL": os.environ.get("HEDIT_LLM_BASE_URL", ""),
    "API_KEY": os.environ.get("HEDIT_LLM_API_KEY", ""),
    "MODEL": os.environ.get("HEDIT_LLM_MODEL", ""),
    # An unknown constraint is reported by `manage.py check` and at start-up (annotations.E003).
    "CONSTRAINT": os.environ.get("HEDIT_LLM_CONSTRAINT", "none"),
    "TIMEOUT": env_number("HEDIT_LLM_TIMEOUT", 60.0, float),
    "MAX_RETRIES": env_number("HEDIT_LLM_MAX_RETRIES", 3),
    "CACHE_TTL": env_number("HEDIT_LLM_CACHE_TTL", 7 * 24 * 3600),
    # What one reply may cost, on every endpoint (users' own too): bytes read, and seconds for the whole call.
    "MAX_REPLY_BYTES": env_number("HEDIT_LLM_MAX_REPLY_BYTES", 2**20),
    "REPLY_SECONDS": env_number("HEDIT_LLM_REPLY_SECONDS", 0.0, float),  # 0: 180 s or 3 x TIMEOUT, if longer
}
# Internal hosts users' own endpoints may reach anyway (names, .suffixes, addresses, CIDR networks).
HEDIT_LLM_ALLOWED_HOSTS = env_list("HEDIT_LLM_ALLOWED_HOSTS", "")
# Models a user may pick to run on the server's key; empty: only the server's configured models.
HEDIT_LLM_SERVER_MODELS = env_list("HEDIT_LLM_SERVER_MODELS", "")
HEDIT_DEFAULT_SCHEMA = os.environ.get("HEDIT_DEFAULT_SCHEMA", "8.4.0")
# Before HEDIT_KEY_ENCRYPTION_KEYS, stored keys were encrypted with a key derived from this secret
# (by default the Django secret key). Set it only to read such keys; `manage.py rotate_llm_keys` re-encrypts.
HEDIT_KEY_ENCRYPTION_SECRET = os.environ.get("HEDIT_KEY_ENCRYPTION_SECRET", "")
HEDIT_MAX_IMAGE_BYTES = env_number("HEDIT_MAX_IMAGE_BYTES", 5 * 1024 * 1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    # The request errors of annotations.errors (and refused uploads) become 400/403/404/409/429 answers here.
    "EXCEPTION_HANDLER": "annotations.api.exceptions.exception_handler",
    # JSON nested deeper than HEDIT_MAX_JSON_DEPTH is a 400, not a RecursionError.
    "DEFAULT_PARSER_CLASSES": [
        "annotations.api.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "HEDit Portal API",
    "DESCRIPTION": "Annotate event descriptions with HED, review and export the results.",
    "VERSION": "1.0.0",
    # Runs and dataset projects both have a "status" with other choices; the runs' set is named after its model.
    "ENUM_NAME_OVERRIDES": {"SessionStatusEnum": "annotations.models.SessionStatus",
                            "DatasetStatusEnum": "annotations.models.JobStatus"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("HEDIT_LOG_LEVEL", "WARNING")},
    "loggers": {
        "agents": {"level": os.environ.get("HEDIT_LOG_LEVEL", "WARNING")},
        "annotations": {"level": os.environ.get("HEDIT_LOG_LEVEL", "WARNING")},
        # The server's few start-up lines ("Listening on TCP address ..."): where it serves, and that it is up.
        "daphne.server": {"level": "INFO"},
    },
}

# --- Hardening: limits, quotas, HTTPS, content security policy, login lock-out ------------------------

# Rates counted by annotations/limits.py (its one parser reads them; see the README's Limits section).
# Every way a run starts (form, re-run, API) counts against one per-user quota.
HEDIT_RUN_RATE = os.environ.get("HEDIT_RUN_RATE") or os.environ.get("HEDIT_API_CREATE_RATE") or "60/hour"
# Dataset jobs: levels one user may have annotated (a quota of its own).
HEDIT_DATASET_RATE = os.environ.get("HEDIT_DATASET_RATE") or "2000/day"
# Evaluations (annotations/evaluation): items one user may have evaluated (a quota of its own), the most items
# one evaluation set holds, and how many runs of one evaluation run at once (annotations.evaluation.batches).
HEDIT_EVALUATION_RATE = os.environ.get("HEDIT_EVALUATION_RATE") or "2000/day"
HEDIT_EVALUATION_MAX_ITEMS = os.environ.get("HEDIT_EVALUATION_MAX_ITEMS") or "500"
HEDIT_EVALUATION_CONCURRENCY = os.environ.get("HEDIT_EVALUATION_CONCURRENCY") or "2"
# Validating a HED string: per user, on the page and through the API (same rate, separate counts).
HEDIT_VALIDATE_RATE = os.environ.get("HEDIT_VALIDATE_RATE") or "60/minute"
# HED queries over a dataset (search, design matrices, summaries, compare) per user, per process.
HEDIT_QUERY_RATE = os.environ.get("HEDIT_QUERY_RATE") or "120/minute"
HEDIT_MAX_JSON_DEPTH = env_number("HEDIT_MAX_JSON_DEPTH", 32)

# Request bodies: refused from the Content-Length (or as they stream in) before they are read.
HEDIT_MAX_REQUEST_BYTES = env_number("HEDIT_MAX_REQUEST_BYTES", HEDIT_MAX_IMAGE_BYTES + 1024 * 1024)
# Paths that take archives (dataset uploads) get a larger cap of their own.
HEDIT_UPLOAD_PATHS = env_list("HEDIT_UPLOAD_PATHS", "/datasets/,/api/datasets/")
HEDIT_MAX_UPLOAD_BYTES = env_number("HEDIT_MAX_UPLOAD_BYTES", 64 * 1024 * 1024)
# What one dataset upload may cost, checked while it is read (bidsdata.limits): each
# HEDIT_UPLOAD_MAX_* variable of the README's table set in the environment overrides its default there.
# (read as text here: `manage.py check` and the server's start report a value that is no whole number)
HEDIT_UPLOAD_LIMITS = {name: value.strip() for name, value in os.environ.items()
                       if name.startswith("HEDIT_UPLOAD_MAX_") and value.strip()}
# How much of a task's events the project page's quality figures examine (files, then rows in them).
HEDIT_QUALITY_MAX_FILES = env_number("HEDIT_QUALITY_MAX_FILES", 20)
HEDIT_QUALITY_MAX_ROWS = env_number("HEDIT_QUALITY_MAX_ROWS", 20000)
# The processes that validate events files: one pool per server process, shared by every validation
# (bidsdata.pool.shared_pool). 0: one per core this process may use.
HEDIT_VALIDATION_WORKERS = max(0, env_number("HEDIT_VALIDATION_WORKERS", 0))
# Search processes, each keeping the assembled HED of the sidecar revisions it owns (0: as many as the validation
# pool; below 0: searches run in the asking process). HEDIT_SEARCH_STORE_EVENTS bounds what each one keeps.
HEDIT_SEARCH_PROCESSES = env_number("HEDIT_SEARCH_PROCESSES", 0)
HEDIT_SEARCH_STORE_EVENTS = env_number("HEDIT_SEARCH_STORE_EVENTS", 100000)
# Form and JSON bodies held in memory; uploaded files past FILE_UPLOAD_MAX_MEMORY_SIZE go to disk.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_number("HEDIT_MAX_FORM_BYTES", 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024

# HTTPS: behind a TLS proxy run daphne with --proxy-headers so requests know they came over HTTPS.
HEDIT_HTTPS = env_bool("HEDIT_HTTPS", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
if HEDIT_HTTPS:
    SECURE_SSL_REDIRECT = env_bool("HEDIT_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_number("HEDIT_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HEDIT_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("HEDIT_HSTS_PRELOAD", True)

# Content Security Policy (django-csp): scripts and styles from this site only, no inline code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# Login lock-out (django-axes): after HEDIT_LOGIN_FAILURE_LIMIT wrong passwords for one user name from
# one address, that pair is refused for HEDIT_LOGIN_COOLOFF_MINUTES (a success before then resets it).
AXES_FAILURE_LIMIT = env_number("HEDIT_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = env_number("HEDIT_LOGIN_COOLOFF_MINUTES", 15.0, float) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The socket's peer address only (daphne --proxy-headers puts a trusted proxy's client there):
# X-Forwarded-For from the client itself would let it pick a fresh address for every try.
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]
AXES_VERBOSE = False
