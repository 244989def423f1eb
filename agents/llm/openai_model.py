"""A :class:`~agents.llm.base.ChatModel` over any OpenAI-compatible endpoint, via the ``openai`` SDK."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import weakref
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agents.llm.base import LLMError, LLMRefused, LLMReply, LLMTimeout, Message, render_messages
from agents.llm.bounds import ReplyTooLarge, ReplyUnreadable, bounded_event_hooks
from agents.llm.cache import CachedResponse, ResponseCache, request_key
from agents.llm.endpoints import AllowList, guarded_http_client, shared_ssl_context
from agents.llm.pricing import cost_usd
from agents.llm.providers import ProviderConfig
from agents.state import LLMCall

if TYPE_CHECKING:
    import openai

logger = logging.getLogger(__name__)


def _sdk() -> ModuleType:
    """The ``openai`` SDK, imported on first use: it costs about 0.7 s, and offline runs never need it."""
    import openai

    return openai

__all__ = ["OpenAIChatModel", "ProviderConfig"]

# What reading a broken or hostile body raises (json recurses per nesting level, pydantic refuses shapes): each
# is the endpoint's failure, an LLMError, so the caller falls back as for any other model error.
_UNREADABLE = (RecursionError, ValueError, TypeError, AttributeError, KeyError, IndexError, UnicodeError)
# Longer replies are not cached: the call's row is then the one place that holds them (a reply that long is no
# answer worth repeating: no annotation is longer than 20,000 characters).
MAX_CACHED_REPLY_CHARS = 64_000
# Statuses worth another try: the server is busy, restarting or briefly broken.
_RETRY_STATUSES = {408, 409, 429, 500, 502, 503, 504}
# Sampling parameters some models refuse (reasoning models want their defaults); dropped on refusal.
_OPTIONAL_PARAMS = ("temperature", "seed", "max_tokens")
_UNSUPPORTED = re.compile(r"unsupported (?:parameter|value)[^']*'(\w+)'|'(\w+)' is not supported", re.IGNORECASE)


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _server_message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return re.sub(r"^Error code: \d+ - ", "", str(getattr(exc, "message", "") or exc))


class OpenAIChatModel:
    """Answers agents through one endpoint, each agent with its own (or the annotation) model.

    Temperature 0 and a fixed seed make answers repeatable where the endpoint honours them;
    429, 5xx and dropped connections are retried with exponential backoff; every other
    failure becomes an :class:`LLMError` with one line that never contains the key.
    """

    def __init__(self, config: ProviderConfig, *, cache: ResponseCache | None = None) -> None:
        self.config = config
        self.cache = cache
        self._client: openai.AsyncOpenAI | None = None
        self._loop: weakref.ref[asyncio.AbstractEventLoop] | None = None
        self._dropped: set[str] = set()

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.config.base_url!r}, model={self.config.model!r})"

    @property
    def constraint(self) -> str:
        return self.config.constraint

    # --- public ----------------------------------------------------------------------------
    async def complete(self, agent: str, messages: list[Message], *,
                       response_format: dict[str, Any] | None = None,
                       extra_body: dict[str, Any] | None = None) -> LLMReply:
        model = self.config.model_for(agent)
        if not model:
            raise LLMError("no LLM model is configured (set HEDIT_LLM_MODEL or choose one in the LLM settings)")
        params = self._params(model, messages, response_format, extra_body)
        request_text = render_messages(messages)
        key = request_key(self.config.base_url, params, self.config.cache_scope) if self.cache is not None else None
        if key is not None:
            cached = await self._cache_get(key)
            if cached is not None:
                # The tokens the answer took when it was made; the hit itself costs nothing and no time.
                call = LLMCall(agent=agent, model=cached.model, request=request_text, response=cached.text,
                               prompt_tokens=cached.prompt_tokens, completion_tokens=cached.completion_tokens,
                               cache_hit=True)
                return LLMReply(text=cached.text, call=call)
        started = time.perf_counter()
        try:
            # The whole call, retries included: a body dripped a byte per read timeout would otherwise never end.
            async with asyncio.timeout(self.config.reply_seconds):
                response = await self._create(params)
        except TimeoutError:
            raise LLMTimeout(f"the LLM endpoint {self.config.base_url} did not finish answering within "
                             f"{self.config.reply_seconds:g} s (HEDIT_LLM_REPLY_SECONDS)") from None
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            text, call = self._read(agent, model, request_text, response, latency_ms)
        except _UNREADABLE as exc:
            raise LLMError(self._unreadable(exc)) from None
        if key is not None and text and len(text) <= MAX_CACHED_REPLY_CHARS:
            await self._cache_put(key, CachedResponse(model=call.model, text=text,
                                                      prompt_tokens=call.prompt_tokens,
                                                      completion_tokens=call.completion_tokens))
        return LLMReply(text=text, call=call)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    # --- request -----------------------------------------------------------------------------
    def _params(self, model: str, messages: list[Message], response_format: dict[str, Any] | None,
                extra_body: dict[str, Any] | None) -> dict[str, Any]:
        cfg = self.config
        params: dict[str, Any] = {"model": model, "messages": messages}
        if cfg.temperature is not None:
            params["temperature"] = cfg.temperature
        if cfg.seed is not None:
            params["seed"] = cfg.seed
        if cfg.max_tokens is not None:
            params["max_tokens"] = cfg.max_tokens
        if response_format is not None:
            params["response_format"] = response_format
        body = {**cfg.extra_body, **(extra_body or {})}
        if body:
            params["extra_body"] = body
        return params

    def _get_client(self) -> openai.AsyncOpenAI:
        openai = _sdk()
        # An httpx client belongs to the event loop that opened it; each run may bring a new loop.
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is None or self._loop() is not loop:
            # Every reply is read through the byte cap, before the SDK parses it (agents.llm.bounds).
            hooks = bounded_event_hooks(self.config.max_reply_bytes)
            if self.config.trusted:
                http_client = openai.DefaultAsyncHttpxClient(verify=shared_ssl_context(), timeout=self.config.timeout,
                                                             event_hooks=hooks)
            else:
                # A user's endpoint: every connection checked against internal addresses, no redirects.
                http_client = guarded_http_client(AllowList.parse(self.config.allowed_hosts), self.config.timeout,
                                                  event_hooks=hooks)
            self._client = openai.AsyncOpenAI(base_url=self.config.base_url, api_key=self.config.api_key or "none",
                                              timeout=self.config.timeout, max_retries=0, http_client=http_client)
            self._loop = weakref.ref(loop)
        return self._client

    async def _create(self, params: dict[str, Any]) -> Any:
        openai = _sdk()
        client = self._get_client()
        attempt = 0
        while True:
            kwargs = {k: v for k, v in params.items() if k not in self._dropped}
            try:
                return await client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                param = self._refused_param(exc)
                if param is None:
                    raise LLMRefused(self._describe(exc)) from None
                logger.info("LLM endpoint %s refuses %s for %s; sending without it",
                            self.config.base_url, param, kwargs["model"])
                self._dropped.add(param)
            except openai.APITimeoutError as exc:
                raise LLMTimeout(self._describe(exc)) from None
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise LLMRefused(self._describe(exc)) from None
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                # A 4xx answer is the endpoint refusing the request (a rate limit too, once the retries are
                # spent); anything else is an error (unreachable, broken).
                failure = LLMRefused if status is not None and 400 <= status < 500 else LLMError
                if status is not None and status not in _RETRY_STATUSES:
                    raise failure(self._describe(exc)) from None
                if attempt >= self.config.max_retries:
                    raise failure(self._describe(exc, retries=attempt)) from None
                delay = _retry_after(exc)
                if delay is None:
                    delay = self.config.retry_backoff * (2 ** attempt)
                delay = min(delay, self.config.max_backoff)
                attempt += 1
                logger.warning("LLM endpoint %s: %s; retry %d of %d in %.1f s", self.config.base_url,
                               status or type(exc).__name__, attempt, self.config.max_retries, delay)
                await asyncio.sleep(delay)
            except openai.OpenAIError as exc:
                raise LLMError(self._describe(exc)) from None
            except _UNREADABLE as exc:  # the SDK decodes the body inside create()
                raise LLMError(self._unreadable(exc)) from None
            except (ReplyTooLarge, ReplyUnreadable) as exc:  # the bounds stopped reading: never worth a retry
                raise self._bounded(exc) from None

    def _refused_param(self, exc: openai.BadRequestError) -> str | None:
        names = {getattr(exc, "param", None)}
        match = _UNSUPPORTED.search(str(getattr(exc, "message", "") or exc))
        if match:
            names.add(match.group(1) or match.group(2))
        for name in _OPTIONAL_PARAMS:
            if name in names and name not in self._dropped:
                return name
        return None

    def _bounded(self, exc: Exception) -> LLMError:
        """The error for a reply the bounds stopped: named, so the run's failed step says why."""
        logger.warning("LLM endpoint %s: %s", self.config.base_url, exc)
        return LLMError(_one_line(f"the LLM endpoint {self.config.base_url} was not read to the end: {exc}", 400))

    def _unreadable(self, exc: Exception) -> str:
        """One line for a body that could not be decoded (too deep, not JSON, not a chat completion)."""
        logger.warning("LLM endpoint %s answered a body that cannot be read: %s", self.config.base_url,
                       type(exc).__name__)
        reason = "nested too deep" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}"
        text = f"the LLM endpoint {self.config.base_url} answered a body that cannot be read ({_one_line(reason, 120)})"
        key = self.config.api_key
        return _one_line(text.replace(key, "***") if key and len(key) >= 4 else text, 400)

    def _describe(self, exc: Exception, *, retries: int = 0) -> str:
        """One user-facing line naming the endpoint and what went wrong, with the key redacted."""
        openai = _sdk()
        where = f"the LLM endpoint {self.config.base_url}"
        after = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
        status = getattr(exc, "status_code", None)
        if not self.config.trusted and isinstance(exc, openai.APIConnectionError | openai.APITimeoutError):
            # A user's endpoint: refused, timed out, blocked or unresolvable all read the same, so the
            # stored errors cannot map which hosts and ports answer.
            logger.info("user LLM endpoint %s unreachable: %s", self.config.base_url, exc.__cause__ or exc)
            return f"cannot reach {where}"
        if isinstance(exc, openai.APITimeoutError):
            text = f"{where} did not answer within {self.config.timeout:g} s"
        elif isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            text = f"{where} refused the API key (HTTP {status}); check the key in the LLM settings"
        elif isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            reason = _one_line(str(cause), 120) if cause is not None and str(cause) else "connection failed"
            text = f"cannot reach {where}{after}: {reason}"
        elif isinstance(exc, openai.RateLimitError):
            text = f"{where} is rate limiting requests (HTTP 429){after}"
        elif isinstance(exc, openai.APIStatusError):
            text = f"{where} answered HTTP {status}{after}: {_one_line(_server_message(exc), 200)}"
        else:
            text = f"{where} failed: {type(exc).__name__}: {_one_line(str(exc), 200)}"
        key = self.config.api_key
        if key and len(key) >= 4:
            text = text.replace(key, "***")
        return _one_line(text, 400)

    # --- response ----------------------------------------------------------------------------
    def _read(self, agent: str, model: str, request_text: str, response: Any,
              latency_ms: float) -> tuple[str, LLMCall]:
        choices = getattr(response, "choices", None) or []
        message = choices[0].message if choices else None
        text = (getattr(message, "content", None) or "") if message is not None else ""
        if not isinstance(choices, list) or not isinstance(text, str) or (
                message is not None and not hasattr(message, "content")):
            raise TypeError("the body is no chat completion")  # the SDK builds whatever shape it got, unchecked
        if choices and getattr(choices[0], "finish_reason", None) == "length":
            logger.info("%s reply from %s hit the token limit", agent, model)
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        reported = getattr(usage, "cost", None)
        if reported is None and usage is not None:
            reported = (getattr(usage, "model_extra", None) or {}).get("cost")
        answered_by = str(getattr(response, "model", "") or model)
        cost = cost_usd(model, prompt_tokens, completion_tokens, prices=self.config.prices,
                        reported=float(reported) if isinstance(reported, int | float) else None)
        if not cost and reported is None and answered_by != model:
            # A router answered with a model of its choice; price that one unless the provider said.
            cost = cost_usd(answered_by, prompt_tokens, completion_tokens, prices=self.config.prices)
        call = LLMCall(agent=agent, model=answered_by, request=request_text, response=text,
                       prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=cost,
                       latency_ms=latency_ms)
        return text, call

    # --- cache -------------------------------------------------------------------------------
    async def _cache_get(self, key: str) -> CachedResponse | None:
        try:
            return await self.cache.get(key) if self.cache is not None else None
        except Exception:
            # A broken cache costs a call, never the run.
            logger.warning("LLM response cache lookup failed", exc_info=True)
            return None

    async def _cache_put(self, key: str, response: CachedResponse) -> None:
        try:
            if self.cache is not None:
                await self.cache.put(key, response)
        except Exception:
            logger.warning("LLM response cache store failed", exc_info=True)
