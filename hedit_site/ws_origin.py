"""Websocket handshakes only from this site's own pages.

Channels' ``AllowedHostsOriginValidator`` compares the Origin's *host* with ``ALLOWED_HOSTS``
and ignores scheme and port, so a page on ``http://127.0.0.1:1`` could open a socket to the
portal on ``127.0.0.1:8000`` with the user's cookie.  Here the Origin must equal the
request's own origin (scheme, host and port, from the handshake's ``Host`` header and the
connection's scheme; behind a TLS proxy run daphne with ``--proxy-headers``), or one of
``CSRF_TRUSTED_ORIGINS`` exactly, and the host must be one of ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

logger = logging.getLogger(__name__)

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _normalise(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin, ws/wss read as http/https; None when malformed."""
    try:
        parts = urlsplit(origin.strip())
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme.lower())
        host = (parts.hostname or "").lower()
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if scheme not in _DEFAULT_PORTS or not host or port is None or parts.path not in ("", "/"):
        return None
    return scheme, host, port


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def origin_allowed(scope: dict[str, Any]) -> bool:
    """True when the handshake's Origin is this site's own origin or a trusted one."""
    origin = _header(scope, b"origin")
    host = _header(scope, b"host")
    if not origin or not host:
        return False
    wanted = _normalise(origin)
    if wanted is None:
        return False
    trusted = {_normalise(o) for o in getattr(settings, "CSRF_TRUSTED_ORIGINS", []) or []}
    if wanted in trusted:
        return True
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    return wanted == _normalise(f"{scheme}://{host}")


class SameOriginValidator:
    """ASGI middleware: refuse websocket handshakes from any other origin (see the module docstring)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            logger.warning("refused a websocket from origin %r to %s", _header(scope, b"origin"), scope.get("path"))
            return await WebsocketDenier()(scope, receive, send)
        return await self.app(scope, receive, send)
