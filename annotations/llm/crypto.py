"""Encryption at rest for users' API keys, with keys of their own (never the Django secret key).

``HEDIT_KEY_ENCRYPTION_KEYS`` holds Fernet keys: the first encrypts, all of them decrypt, so a
new key goes first and the old ones stay until ``manage.py rotate_llm_keys`` has re-encrypted
every stored key.  Without it, a per-install key is generated (see ``hedit_site.install_secrets``).
``HEDIT_KEY_ENCRYPTION_SECRET``, when set, still decrypts keys stored by earlier versions.
"""

from __future__ import annotations

import base64
import functools
import logging

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

logger = logging.getLogger(__name__)


class SecretUnreadable(ValueError):
    """A stored secret cannot be decrypted (its key is gone, or the value is corrupt)."""


def legacy_fernet(secret: str) -> Fernet:
    """The key earlier versions derived from a server secret (``HEDIT_KEY_ENCRYPTION_SECRET``): tokens they
    stored are still read with it, never written (:func:`reencrypt_secret` moves them to the current key)."""
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"hedit-portal",
               info=b"user-llm-api-key-v1").derive(secret.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(raw))


@functools.lru_cache(maxsize=4)
def _multi(keys: tuple[str, ...], legacy_secret: str) -> MultiFernet:
    try:
        fernets = [Fernet(key.encode("ascii")) for key in keys]
    except (ValueError, UnicodeError) as exc:
        raise SecretUnreadable("HEDIT_KEY_ENCRYPTION_KEYS holds a value that is not a Fernet key") from exc
    if legacy_secret:
        fernets.append(legacy_fernet(legacy_secret))
    if not fernets:
        raise SecretUnreadable("no key encryption key is configured (HEDIT_KEY_ENCRYPTION_KEYS)")
    return MultiFernet(fernets)


def _current() -> MultiFernet:
    keys = getattr(settings, "HEDIT_KEY_ENCRYPTION_KEYS", None) or []
    if isinstance(keys, str):
        keys = keys.split(",")
    return _multi(tuple(k.strip() for k in keys if k.strip()),
                  getattr(settings, "HEDIT_KEY_ENCRYPTION_SECRET", "") or "")


def encrypt_secret(plain: str) -> str:
    """An opaque token for *plain*; different on every call (Fernet adds a random IV)."""
    return _current().encrypt(plain.encode("utf-8")).decode("ascii")


def decrypt_secret(token: str) -> str:
    try:
        return _current().decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, UnicodeError, ValueError) as exc:
        raise SecretUnreadable("the stored API key cannot be decrypted") from exc


def reencrypt_secret(token: str) -> str:
    """*token* encrypted again with the first (current) key; raises :class:`SecretUnreadable`."""
    try:
        return _current().rotate(token.encode("ascii")).decode("ascii")
    except (InvalidToken, UnicodeError, ValueError) as exc:
        raise SecretUnreadable("the stored API key cannot be decrypted") from exc
