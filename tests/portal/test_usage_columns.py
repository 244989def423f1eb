"""No token or cost noise for offline runs: usage columns and the run page's usage appear only after an
LLM call; exports keep their columns."""

from __future__ import annotations

import re

import pytest

from annotations.models import SessionStatus
from tests.support.runs import make_session

pytestmark = pytest.mark.django_db

HISTORY = "/sessions/"


def test_history_hides_usage_columns_when_no_run_called_a_model(client, user) -> None:
    make_session(user, status=SessionStatus.SUCCEEDED)
    client.force_login(user)
    page = client.get(HISTORY).content.decode()
    assert ">Tokens<" not in page and ">Cost<" not in page and "$0.0000" not in page
    make_session(user, description="with a model", llm_call_count=2, prompt_tokens=100, completion_tokens=5,
                 cost_usd="0.01")
    page = client.get(HISTORY).content.decode()
    assert ">Tokens<" in page and "$0.0100" in page
    offline_row = re.search(r'<tr data-session="[^"]+">(?:(?!</tr>).)*A red circle appears(?:(?!</tr>).)*</tr>',
                            page, re.S)
    assert offline_row and 'data-label="Tokens">—<' in offline_row.group(0)


def test_run_page_usage_shows_tokens_and_cost_only_after_an_llm_call(client, user) -> None:
    offline = make_session(user, status=SessionStatus.SUCCEEDED)
    online = make_session(user, status=SessionStatus.SUCCEEDED, llm_call_count=3, prompt_tokens=1200,
                          completion_tokens=34, cost_usd="0.0123")
    client.force_login(user)
    usage = re.compile(r'<dl id="usage".*?</dl>', re.S)
    offline_usage = usage.search(client.get(offline.get_absolute_url()).content.decode()).group(0)
    assert "Tokens" not in offline_usage and "Cost" not in offline_usage and "LLM calls" in offline_usage
    online_usage = usage.search(client.get(online.get_absolute_url()).content.decode()).group(0)
    assert "1,234" in online_usage and "$0.0123" in online_usage


def test_exports_keep_their_usage_columns_for_offline_runs(client, user) -> None:
    make_session(user, status=SessionStatus.SUCCEEDED, final_annotation="Sensory-event", is_valid=True)
    client.force_login(user)
    response = client.get("/api/export/", {"format": "csv"})
    header = b"".join(response.streaming_content).decode().splitlines()[0]
    assert "tokens" in header and "cost_usd" in header
