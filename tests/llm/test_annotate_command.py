"""Acceptance: `manage.py annotate` in a subprocess against a scripted endpoint that never gets it right."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.support.db import shared_database_url
from tests.support.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]


def _env(base_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEDIT_LLM_")}
    env.update({"HEDIT_LLM_BASE_URL": base_url, "HEDIT_LLM_API_KEY": "k", "HEDIT_LLM_MODEL": "m",
                "HEDIT_LLM_MAX_RETRIES": "0", "HEDIT_LLM_TIMEOUT": "30",
                # The child process writes into this test's database file, never the development one.
                "DATABASE_URL": shared_database_url(), **extra})
    return env


@pytest.mark.django_db(transaction=True)
def test_annotate_feeds_errors_back_and_stops_at_the_cap():
    with FakeOpenAI(["Sensory-event, Blorp-tag"], required_key="k") as server:
        proc = subprocess.run(
            [sys.executable, "manage.py", "annotate", "A red circle appears.", "--json", "--max-attempts", "3"],
            cwd=ROOT, env=_env(server.base_url), capture_output=True, text=True, timeout=300, check=False)
        requests = server.chat_requests()

    assert proc.returncode != 0, proc.stderr
    record = json.loads(proc.stdout)
    assert all(r.headers["authorization"] == "Bearer k" for r in requests)
    annotation_requests = [r for r in requests if "HED rules" in str(r.messages[0]["content"])]
    assert len(annotation_requests) == 3  # every attempt reached the endpoint
    assert "TAG_INVALID" not in requests[0].text
    for later in requests[1:]:
        assert "TAG_INVALID" in later.text and "Blorp-tag" in later.text
    assert record["status"] == "invalid" and record["is_valid"] is False
    assert len(record["iterations"]) == 3
    for iteration in record["iterations"]:
        assert "TAG_INVALID" in {e["code"] for e in iteration["errors"]}
    usage = record["usage"]
    assert usage["llm_calls"] >= 3
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0


@pytest.mark.django_db(transaction=True)
def test_annotate_reports_a_refused_key_in_one_line(settings):
    out, err = StringIO(), StringIO()
    with FakeOpenAI(["Sensory-event"], required_key="the-real-key") as server:
        settings.HEDIT_LLM = {"BASE_URL": server.base_url, "API_KEY": "sk-wrong", "MODEL": "m", "MAX_RETRIES": 0,
                              "TIMEOUT": 30, "CACHE_TTL": 0}
        with pytest.raises(SystemExit) as exit_:
            call_command("annotate", "A red circle appears.", "--json", stdout=out, stderr=err)
    assert exit_.value.code == 1
    record = json.loads(out.getvalue())
    assert record["status"] == "failed"
    assert "refused the API key (HTTP 401)" in record["error"] and "\n" not in record["error"]
    assert err.getvalue().strip() == record["error"] and "sk-wrong" not in err.getvalue()
