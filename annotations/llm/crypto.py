"""Encryption at rest for users' API keys (Fernet, key derived from HEDIT_KEY_ENCRYPTION_SECRET)."""

from __future__ import annotations

import base64
import functools

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


class SecretUnreadable(ValueError):
    """A stored secret cannot be decrypted (the server secret changed, or the value is corrupt)."""


@functools.lru_cache(maxsize=4)
def _fernet(secret: str) -> Fernet:
    # HKDF with a purpose label: the same server secret signs sessions, so never use it directly.
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"hedit-portal",
               info=b"user-llm-api-key-v1").derive(secret.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(raw))


def _current() -> Fernet:
    secret = settings.HEDIT_KEY_ENCRYPTION_SECRET
    if not secret:
        raise SecretUnreadable("HEDIT_KEY_ENCRYPTION_SECRET is not set")
    return _fernet(secret)


def encrypt_secret(plain: str) -> str:
    """An opaque token for *plain*; different on every call (Fernet adds a random IV)."""
    return _current().encrypt(plain.encode("utf-8")).decode("ascii")


def decrypt_secret(token: str) -> str:
    try:
        return _current().decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, UnicodeError, ValueError) as exc:
        raise SecretUnreadable("the stored API key cannot be decrypted") from exc
