"""Settings for HEDit Portal, read from the environment with safe local defaults.

Embedded default: SQLite file, in-memory channel layer, runs in a thread pool
inside the web process.  Scale-out: set DATABASE_URL (PostgreSQL), REDIS_URL
(channel layer) and HEDIT_TASK_BACKEND=database with `manage.py db_worker`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "local-development-only-not-secret"

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
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the live page read while a background run writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20,
         "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so a live server in a child process sees the test data; one per test
    # process (inherited by its children through the environment) so parallel runs do not collide.
    DATABASES["default"]["TEST"] = {"NAME": os.environ.setdefault(
        "HEDIT_TEST_SQLITE", str(Path(tempfile.gettempdir()) / f"hedit-test-{os.getpid()}.sqlite3"))}

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
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

_TASK_BACKENDS = {
    "thread": "annotations.runs.backends.ThreadPoolBackend",
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
    "dummy": "django_tasks.backends.dummy.DummyBackend",
}
HEDIT_TASK_BACKEND = os.environ.get("HEDIT_TASK_BACKEND", "thread")
if HEDIT_TASK_BACKEND not in _TASK_BACKENDS:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"HEDIT_TASK_BACKEND must be one of {', '.join(_TASK_BACKENDS)}")
TASKS = {
    "default": {
        "BACKEND": _TASK_BACKENDS[HEDIT_TASK_BACKEND],
        "OPTIONS": {"MAX_WORKERS": int(os.environ.get("HEDIT_RUN_WORKERS", "2"))}
        if HEDIT_TASK_BACKEND == "thread" else {},
    }
}

# Language models: unset base URL means the offline annotator.
HEDIT_LLM = {
    "PROVIDER": os.environ.get("HEDIT_LLM_PROVIDER", ""),
    "BASE_URL": os.environ.get("HEDIT_LLM_BASE_URL", ""),
    "API_KEY": os.environ.get("HEDIT_LLM_API_KEY", ""),
    "MODEL": os.environ.get("HEDIT_LLM_MODEL", ""),
    "CONSTRAINT": os.environ.get("HEDIT_LLM_CONSTRAINT", "none"),
    "TIMEOUT": float(os.environ.get("HEDIT_LLM_TIMEOUT", "60")),
    "MAX_RETRIES": int(os.environ.get("HEDIT_LLM_MAX_RETRIES", "3")),
    "CACHE_TTL": int(os.environ.get("HEDIT_LLM_CACHE_TTL", str(7 * 24 * 3600))),
}
_constraint = HEDIT_LLM["CONSTRAINT"].strip().lower().replace("-", "_")
if _constraint not in {"none", "json_schema", "llama_cpp", "llamacpp", "auto"}:
    from django.core.exceptions import ImproperlyConfigured

    # Fail at start-up, not on the first page that shows the server's LLM configuration.
    raise ImproperlyConfigured("HEDIT_LLM_CONSTRAINT must be none, json_schema, llama_cpp or auto")
HEDIT_DEFAULT_SCHEMA = os.environ.get("HEDIT_DEFAULT_SCHEMA", "8.4.0")
HEDIT_KEY_ENCRYPTION_SECRET = os.environ.get("HEDIT_KEY_ENCRYPTION_SECRET", SECRET_KEY)
HEDIT_MAX_IMAGE_BYTES = int(os.environ.get("HEDIT_MAX_IMAGE_BYTES", str(5 * 1024 * 1024)))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_RATES": {"session_create": os.environ.get("HEDIT_API_CREATE_RATE", "60/hour")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "HEDit Portal API",
    "DESCRIPTION": "Annotate event descriptions with HED, review and export the results.",
    "VERSION": "1.0.0",
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
    },
}
