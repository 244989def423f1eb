"""A user's own endpoint cannot exhaust the server (issue 35): a huge reply is read up to a byte cap and no further,
a slow one up to a deadline, an annotation past 20,000 characters is refused, and a reply is stored whole once."""

from __future__ import annotations

import asyncio
import time
import tracemalloc

import pytest
from django.db.models import Sum
from django.db.models.functions import Length

from agents.llm.base import LLMError, LLMTimeout
from agents.llm.providers import resolve_config
from annotations.llm.cache import DatabaseResponseCache
from annotations.models import (
    AgentStepRecord,
    AnnotationSession,
    FeedbackMessage,
    Iteration,
    LLMCallRecord,
    LLMResponseCache,
)
from annotations.runs.execution import execute_session
from annotations.runs.services import build_options, create_session
from tests.support.huge_openai import HugeOpenAI

MESSAGES = [{"role": "user", "content": "Annotate: a red circle."}]
CAP = 256 * 1024
HUGE = 10 * 2**20  # the red team's reply


async def _peak_while(call) -> tuple[BaseException | None, int]:
    """What *call* raised, and the most memory Python held while it ran (tracemalloc's peak, in bytes)."""
    tracemalloc.start()
    try:
        await call
    except Exception as exc:  # the test inspects what it was
        return exc, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return None, 0


@pytest.mark.parametrize("gzip", [False, True], ids=["plain", "gzip-bomb"])
async def test_a_huge_reply_is_read_up_to_the_cap_and_no_further(make_model, gzip):
    with HugeOpenAI(HUGE, gzip=gzip) as server:
        model = make_model(server.base_url, api_key="sk-secret-key", max_reply_bytes=CAP, trusted=False,
                           allowed_hosts=("127.0.0.1",))
        error, peak = await _peak_while(model.complete("annotation", MESSAGES))
        await model.aclose()
    assert isinstance(error, LLMError) and not isinstance(error, LLMTimeout)
    message = str(error)
    assert f"larger than {CAP:,} bytes" in message and server.base_url in message and "sk-secret-key" not in message
    # Before the bound the whole 10 MB (and several decoded copies) was held: now a few chunks past the cap.
    assert peak < 4 * CAP, f"held {peak:,} bytes for a {CAP:,}-byte cap"
    assert server.requests == 1  # a reply too large is not asked again


async def test_the_servers_own_endpoint_is_bounded_too(make_model):
    with HugeOpenAI(HUGE) as server:
        model = make_model(server.base_url, max_reply_bytes=CAP)  # trusted: the server's own settings
        error, peak = await _peak_while(model.complete("annotation", MESSAGES))
        await model.aclose()
    assert isinstance(error, LLMError) and "larger than" in str(error) and peak < 4 * CAP


async def test_a_reply_that_stalls_ends_at_the_deadline_not_the_read_timeout(make_model):
    with HugeOpenAI(HUGE, stall=True) as server:
        model = make_model(server.base_url, timeout=60.0, reply_seconds=1.0, max_retries=0)
        started = time.monotonic()
        with pytest.raises(LLMTimeout) as err:
            await model.complete("annotation", MESSAGES)
        elapsed = time.monotonic() - started
        await model.aclose()
    assert "did not finish answering within 1 s" in str(err.value) and elapsed < 30


def test_the_bounds_are_server_settings():
    config = resolve_config({"BASE_URL": "http://x/v1", "MAX_REPLY_BYTES": "5000", "REPLY_SECONDS": "7"})
    assert config is not None and config.max_reply_bytes == 5000 and config.reply_seconds == 7.0
    slow = resolve_config({"BASE_URL": "http://x/v1", "TIMEOUT": "300"})  # a slow local model keeps its minutes
    assert slow is not None and slow.reply_seconds == 900.0 and slow.max_reply_bytes == 2**20


def _stored_chars() -> int:
    """Every text a run stores about a reply, in characters."""
    total = 0
    for model, fields in ((LLMCallRecord, ("response",)), (AgentStepRecord, ("output", "feedback", "input_summary")),
                          (Iteration, ("annotation", "feedback", "evaluation_feedback")),
                          (FeedbackMessage, ("text",)), (LLMResponseCache, ("response",)),
                          (AnnotationSession, ("final_annotation", "machine_annotation", "error"))):
        for name in fields:
            total += model.objects.aggregate(n=Sum(Length(name)))["n"] or 0
    return total


@pytest.mark.django_db(transaction=True)
def test_a_run_against_a_huge_reply_fails_with_a_step_saying_why_and_stores_almost_nothing(make_model, user):
    with HugeOpenAI(HUGE) as server:
        model = make_model(server.base_url, cache=DatabaseResponseCache(3600), max_reply_bytes=CAP,
                           trusted=False, allowed_hosts=("127.0.0.1",))
        session = create_session(user=user, description="A red circle appears.", options=build_options({}))
        done = asyncio.run(execute_session(session.pk, llm=model, use_configured_llm=False))
    assert done is not None and done.status == "failed"
    assert f"larger than {CAP:,} bytes" in done.error and "HEDIT_LLM_MAX_REPLY_BYTES" in done.error
    failed = AgentStepRecord.objects.filter(session=done, ok=False).get()
    assert failed.output == done.error
    assert not LLMResponseCache.objects.exists()
    assert _stored_chars() < 20_000  # the 10 MB reply stored ~210 MB before


@pytest.mark.django_db(transaction=True)
def test_an_annotation_past_the_limit_is_refused_and_the_reply_stored_once(make_model, user):
    reply_chars = 150_000  # under the byte cap, more than seven times the annotation limit
    with HugeOpenAI(reply_chars) as server:
        model = make_model(server.base_url, cache=DatabaseResponseCache(3600), max_retries=0)
        session = create_session(user=user, description="A red circle appears.", options=build_options({}))
        done = asyncio.run(execute_session(session.pk, llm=model, use_configured_llm=False))
    assert done is not None and done.status in ("invalid", "failed")
    assert len(done.final_annotation) <= 20_000 and "Red, Red" not in done.final_annotation
    iterations = list(Iteration.objects.filter(session=done))
    assert iterations and all(len(it.annotation) <= 20_000 for it in iterations)
    issues = " ".join(i.message for it in iterations for i in it.issues.all())
    assert "the limit is 20,000" in issues
    calls = list(LLMCallRecord.objects.filter(session=done, agent="annotation"))
    assert calls and all(len(c.response) > 100_000 for c in calls)  # the reply, whole, on its call
    assert not LLMResponseCache.objects.exists()  # ...and nowhere else
    steps = AgentStepRecord.objects.filter(session=done).aggregate(
        n=Sum(Length("output")) + Sum(Length("feedback")) + Sum(Length("input_summary")))["n"] or 0
    assert steps < 20_000 * AgentStepRecord.objects.filter(session=done).count()
    assert not any("Red, Red, Red" * 2000 in (s.output or "") for s in AgentStepRecord.objects.filter(session=done))
