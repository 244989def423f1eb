"""Two scripted OpenAI-compatible endpoints that answer differently, a made-up gold set, and a way to run an
evaluation to its end in the test (the task backend's threads, settled, never slept on).

- ``alpha``, the server's model: a valid annotation at once for each description (one of them judged not
  faithful, so it is refined once);
- ``beta``, a user's own endpoint: an invalid annotation first, then a valid one after the feedback.

Every call reports 100 prompt and 10 completion tokens at $0.001, so tokens and costs are known by hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotations.evaluation.batches import progress_of
from annotations.models import EvaluationBatch, UserLLMSettings
from annotations.runs.backends import ThreadPoolBackend
from tests.support.fake_openai import FakeOpenAI, Recorded, Reply

# Made-up descriptions and gold (the last one's gold uses a definition it holds).
GOLD_ROWS = [
    ("g1", "A green square appears at the center of the screen.",
     "Sensory-event, Visual-presentation, (Green, Square)"),
    ("g2", "The participant presses the left button.", "Agent-action, Participant-response, (Press, Push-button)"),
    ("g3", "A short beep sounds.", "Sensory-event, Auditory-presentation, Beep"),
    ("g4", "A cross is drawn in the middle.",
     "Sensory-event, Def/Cross-shape, (Definition/Cross-shape, (Visual-presentation, Cross))"),
]
ALPHA = {"square": "Sensory-event, Visual-presentation, (Green, Square)",
         "presses": "Agent-action, (Press, Push-button)",
         "beep": "Sensory-event, Auditory-presentation",
         "cross": "Sensory-event, Visual-presentation, Cross"}
BETA_FIRST = "Sensory-event, Blorp-tag"
BETA = "Sensory-event"
USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "cost": 0.001}
_DESCRIPTION = re.compile(r"^Description: (.*)$", re.MULTILINE)


def gold_csv(rows: list[tuple[str, str, str]] = GOLD_ROWS) -> str:
    lines = ["id,description,hed"] + [f'{key},"{text}","{hed}"' for key, text, hed in rows]
    return "\n".join(lines) + "\n"


def _description(request: Recorded) -> str:
    found = _DESCRIPTION.findall(str(request.messages[-1].get("content", "")))
    return found[-1].lower() if found else ""


def _kind(request: Recorded) -> str:
    first = str(request.messages[0].get("content", ""))
    if "HED rules" in first:
        return "annotation"
    return "evaluation" if "faithfully" in first else "feedback"


def alpha_reply(request: Recorded) -> Reply:
    kind, description = _kind(request), _description(request)
    if kind == "evaluation":
        faithful = "beep" not in description
        return Reply(json.dumps({"faithful": faithful, "feedback": "say that it is short"}), **USAGE)
    if kind == "feedback":
        return Reply("Fix the tags.", **USAGE)
    return Reply(next(hed for word, hed in ALPHA.items() if word in description), **USAGE)


def beta_reply(request: Recorded) -> Reply:
    kind = _kind(request)
    if kind == "evaluation":
        return Reply('{"faithful": true, "feedback": ""}', **USAGE)
    if kind == "feedback":
        return Reply("Replace Blorp-tag.", **USAGE)
    retry = "Your previous annotation" in str(request.messages[-1].get("content", ""))
    return Reply(BETA if retry else BETA_FIRST, **USAGE)


@pytest.fixture
def endpoints(settings, user) -> Iterator[dict[str, FakeOpenAI]]:
    """alpha on the server's key; beta on *user*'s own endpoint (a loopback host the allow-list lets through)."""
    alpha, beta = FakeOpenAI([alpha_reply]).start(), FakeOpenAI([beta_reply]).start()
    settings.HEDIT_LLM = {"BASE_URL": alpha.base_url, "API_KEY": "k", "MODEL": "alpha", "MAX_RETRIES": 0,
                          "TIMEOUT": 30, "CACHE_TTL": 0}
    settings.HEDIT_LLM_SERVER_MODELS = ["alpha"]
    settings.HEDIT_LLM_ALLOWED_HOSTS = ["127.0.0.1"]
    UserLLMSettings.objects.create(user=user, base_url=beta.base_url, model="beta")
    yield {"alpha": alpha, "beta": beta}
    alpha.stop()
    beta.stop()


def run_to_end(*batches: EvaluationBatch, rounds: int = 200) -> None:
    """Let the backend's threads run every batch to its end (each run's end starts the next ones)."""
    for _ in range(rounds):
        for batch in batches:
            batch.refresh_from_db()
        if all(b.status != "running" for b in batches):
            return
        assert ThreadPoolBackend.settle_all(timeout=60), "a run did not end within 60 s"
    raise AssertionError(f"evaluations still running: {[progress_of(b) for b in batches]}")


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    path = tmp_path / "gold.csv"
    path.write_text(gold_csv(), encoding="utf-8")
    return path


def by_model(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["model"]: o for o in objects}
