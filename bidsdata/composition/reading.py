"""Reading plain English as HED while composing: the one place the composer asks the offline annotator.

Composing reads a few texts the levels' runs never saw (a legend's description of a thing that lasts, the words
that tell colliding levels apart); the offline annotator reads them, as it reads a level without a model. Each
text is read once per schema version.
"""

from __future__ import annotations

import functools
import logging

from agents.offline.annotator import annotate_offline
from agents.schema import HedVersion, canonical

logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=4096)
def _read(text: str, schema: str) -> str:
    try:
        return annotate_offline(text, schema_version=schema).annotation
    except Exception:  # a text the annotator cannot take reads as nothing; composing goes on
        logger.warning("could not read %r as HED", text[:80], exc_info=True)
        return ""


def read(text: str, version: HedVersion | None) -> str:
    """*text* as valid HED (the offline annotator's reading), "" where it says nothing."""
    return _read(" ".join(text.split()), canonical(version)) if text.strip() else ""
