"""Per-install secrets: made once on first start, kept owner-only beside the local database.

Nothing secret lives in the repository.  ``DJANGO_SECRET_KEY`` (sessions, CSRF, signing) and
``HEDIT_KEY_ENCRYPTION_KEYS`` (users' stored API keys) come from the environment when given;
otherwise each is generated with a strong random source on first use and written to
``HEDIT_STATE_DIR`` (default ``var/`` in the project) with 0600 permissions, so every process
of one install (web, workers, management commands) reads the same value.

Plain Python: imported by the settings before Django is set up.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)

SECRET_KEY_FILE = "secret_key"
KEY_ENCRYPTION_FILE = "key_encryption_key"


class InstallSecretError(RuntimeError):
    """A per-install secret can neither be read nor created (say, a read-only folder)."""


def _make_secret_key() -> str:
    return secrets.token_urlsafe(64)


def _make_fernet_key() -> str:
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode("ascii")


def read_or_create(path: Path, make: Callable[[], str]) -> str:
    """The secret stored at *path*, made by *make* and stored first when there is none.

    Created atomically (written to a private temporary file, then linked into place), so two
    processes starting at once agree on one value and nobody reads a half-written file.
    """
    try:
        value = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        value = ""
    except OSError as exc:
        raise InstallSecretError(f"cannot read {path}: {exc}") from exc
    if value:
        _warn_if_readable(path)
        return value
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mkstemp creates it 0600
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(make() + "\n")
            try:
                os.link(temp, path)  # fails if another process got there first: theirs wins
                logger.warning("generated a new per-install secret in %s", path)
            except FileExistsError:
                pass
        finally:
            Path(temp).unlink(missing_ok=True)
        value = path.read_text(encoding="ascii").strip()
    except OSError as exc:
        raise InstallSecretError(f"cannot create {path}: {exc}; set the value in the environment instead") from exc
    if not value:
        raise InstallSecretError(f"{path} is empty")
    return value


def _warn_if_readable(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        logger.warning("%s can be read by other users; run: chmod 600 %s", path, path)


def secret_key(environ: dict[str, str] | os._Environ, state_dir: Path) -> str:
    """``DJANGO_SECRET_KEY``, else this install's generated one."""
    return environ.get("DJANGO_SECRET_KEY", "").strip() or read_or_create(state_dir / SECRET_KEY_FILE,
                                                                            _make_secret_key)


def key_encryption_keys(environ: dict[str, str] | os._Environ, state_dir: Path) -> list[str]:
    """``HEDIT_KEY_ENCRYPTION_KEYS`` (comma separated Fernet keys: the first encrypts, all decrypt),
    else this install's generated key."""
    given = [k.strip() for k in environ.get("HEDIT_KEY_ENCRYPTION_KEYS", "").split(",") if k.strip()]
    return given or [read_or_create(state_dir / KEY_ENCRYPTION_FILE, _make_fernet_key)]
