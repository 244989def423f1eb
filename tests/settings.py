"""The test suite's settings: the app's own (hedit_site.settings), plus what only tests need."""

import os
import tempfile
from pathlib import Path

from hedit_site.settings import *  # noqa: F403 - the app's settings, unchanged
from hedit_site.settings import DATABASES

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so a live server in a child process sees the test data; one per test
    # process (inherited by its children through the environment) so parallel runs do not collide.
    DATABASES["default"]["TEST"] = {"NAME": os.environ.setdefault(
        "HEDIT_TEST_SQLITE", str(Path(tempfile.gettempdir()) / f"hedit-test-{os.getpid()}.sqlite3"))}

# Fixtures hash a password for every user they make: the default PBKDF2 costs ~0.3 s each, and the
# strength of the hash is not under test.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
