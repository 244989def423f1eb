"""The version of the prompts the agents send a language model, recorded with every run.

A run is one of a model configuration (provider, model, constrained decoding, prompt version, schema); the
lab compares configurations, and a saved evaluation set is run again when one of them changes. The version
is a digest of every prompt file beside the agents (``*/prompt.txt``, ``*/prompts/*.txt``): it changes
whenever a prompt's wording does, with nothing to remember to bump.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_AGENTS = Path(__file__).parent
PROMPT_FILES = ("*/prompt.txt", "*/prompts/*.txt")


@functools.cache
def prompt_version() -> str:
    """``p`` and the first 8 hex digits of the SHA-256 of every prompt file (path and text), in path order."""
    digest = hashlib.sha256()
    files = sorted({path for pattern in PROMPT_FILES for path in _AGENTS.glob(pattern)})
    for path in files:
        digest.update(path.relative_to(_AGENTS).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return "p" + digest.hexdigest()[:8]
