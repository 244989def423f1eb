"""An endpoint whose body cannot be read (10,000-deep JSON, no JSON, no chat completion) fails like any other
model error: one LLMError line, so callers fall back to the offline annotator instead of crashing the run."""

from __future__ import annotations

import pytest

from agents.columns.agent import annotate_column
from agents.columns.context import ColumnContext, ColumnLevel
from agents.llm.base import LLMError
from agents.workflow import run_workflow
from tests.support.fake_openai import Reply

MESSAGES = [{"role": "user", "content": "Annotate: a red circle."}]
DEEP = b'{"a": ' * 10_000 + b"1" + b"}" * 10_000
BODIES = {
    "deep-object": DEEP,
    "deep-array": b"[" * 10_000 + b"]" * 10_000,
    "deep-choices": b'{"choices": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "not-json": b"<html>upstream broke</html>",
    "choices-not-a-list": b'{"choices": "none", "model": "m"}',
    "message-not-an-object": b'{"choices": [{"message": 5}], "model": "m"}',
}


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
async def test_an_unreadable_body_is_one_llm_error_line(fake_llm, make_model, body):
    fake_llm.script = [Reply(raw=body)]
    with pytest.raises(LLMError) as err:
        await make_model(fake_llm.base_url, api_key="sk-secret-key").complete("annotation", MESSAGES)
    message = str(err.value)
    assert "cannot be read" in message and fake_llm.base_url in message
    assert "\n" not in message and "sk-secret-key" not in message


async def test_a_run_against_a_10000_deep_body_fails_with_a_reason_not_a_recursion_error(fake_llm, make_model):
    fake_llm.script = [Reply(raw=DEEP)]
    state = await run_workflow("A red circle appears.", llm=make_model(fake_llm.base_url, max_retries=0))
    assert state.status == "failed" and "cannot be read (nested too deep)" in state.error


async def test_a_column_against_a_10000_deep_body_gets_the_offline_annotators_drafts(fake_llm, make_model):
    fake_llm.script = [Reply(raw=DEEP)]
    context = ColumnContext(column="shape", levels=(ColumnLevel("circle", "A red circle appears."),
                                                    ColumnLevel("square", "A blue square appears.")))
    result = await annotate_column(context, make_model(fake_llm.base_url, max_retries=0), schema_version="8.4.0")
    assert "cannot be read" in result.error
    assert {value: draft.source for value, draft in result.drafts.items()} == {"circle": "offline", "square": "offline"}
    assert all(draft.annotation for draft in result.drafts.values())
