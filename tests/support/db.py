"""The URL of the test database, so child processes (daphne, db_worker) share it."""

from __future__ import annotations

from django.db import connections


def shared_database_url(alias: str = "default") -> str:
    connection = connections[alias]
    cfg = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{cfg['NAME']}"
    if connection.vendor == "postgresql":
        user = cfg.get("USER") or "postgres"
        password = f":{cfg['PASSWORD']}" if cfg.get("PASSWORD") else ""
        host, port = cfg.get("HOST") or "127.0.0.1", cfg.get("PORT") or 5432
        return f"postgres://{user}{password}@{host}:{port}/{cfg['NAME']}"
    raise RuntimeError(f"no URL for database vendor {connection.vendor}")
