"""Endpoint configuration: presets for common OpenAI-compatible servers and one config per model.

``resolve_config`` turns a flat mapping (the ``HEDIT_LLM`` settings, a user's stored settings,
or the environment via ``values_from_env``) into a :class:`ProviderConfig`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.llm.pricing import Price, normalise_prices, parse_prices

logger = logging.getLogger(__name__)

# What one reply may cost by default (agents.llm.bounds reads the body through the first; the model bounds the call
# by the second). A 1,024-token reply is a few KiB, a column's levels a few tens; three tries of a slow minute.
DEFAULT_MAX_REPLY_BYTES = 2**20
DEFAULT_REPLY_SECONDS = 180.0
AGENTS = ("annotation", "evaluation", "assessment", "feedback", "vision")
CONSTRAINTS = ("none", "json_schema", "llama_cpp")


@dataclass(frozen=True)
class Preset:
    label: str
    base_url: str
    model: str = ""
    api_key: str = ""  # local servers accept anything, but the SDK insists on a value
    constraint: str = "none"
    extra_body: Mapping[str, Any] = field(default_factory=dict)


PRESETS: dict[str, Preset] = {
    "openai": Preset("OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", constraint="json_schema"),
    # OpenRouter reports each call's cost when asked to include usage.
    "openrouter": Preset("OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4o-mini",
                         constraint="json_schema", extra_body={"usage": {"include": True}}),
    "ollama": Preset("Ollama", "http://localhost:11434/v1", "llama3.2", api_key="ollama",
                     constraint="json_schema"),
    "vllm": Preset("vLLM", "http://localhost:8000/v1", api_key="EMPTY", constraint="json_schema"),
    "llamacpp": Preset("llama.cpp server", "http://localhost:8080/v1", "local", api_key="none",
                       constraint="llama_cpp"),
}
_ALIASES = {"llama.cpp": "llamacpp", "llama_cpp": "llamacpp", "llama-cpp": "llamacpp", "open-router": "openrouter"}


def preset_name(provider: str | None) -> str:
    """The canonical preset key for *provider* ("" when none or unknown)."""
    key = (provider or "").strip().lower()
    key = _ALIASES.get(key, key)
    return key if key in PRESETS else ""


@dataclass(frozen=True)
class ProviderConfig:
    """Everything needed to talk to one OpenAI-compatible endpoint."""

    base_url: str
    api_key: str = field(default="", repr=False)  # never in reprs, logs or error messages
    model: str = ""
    agent_models: Mapping[str, str] = field(default_factory=dict)
    provider: str = ""
    constraint: str = "none"
    timeout: float = 60.0
    max_retries: int = 3
    retry_backoff: float = 0.5  # first retry waits this long, doubling each time
    max_backoff: float = 8.0
    temperature: float | None = 0.0
    seed: int | None = 42
    max_tokens: int | None = 1024
    prices: Mapping[str, Price] = field(default_factory=dict)
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    # The server's own endpoint is trusted; a user's is not: its connections are checked against
    # internal addresses (see agents.llm.endpoints) and its errors never say why a connection failed.
    trusted: bool = True
    allowed_hosts: tuple[str, ...] = ()
    # Whose cached replies this config may read and write: "server", or "user:<id>" for a user's own key.
    cache_scope: str = "server"
    # What one reply may cost (agents.llm.bounds): its body's bytes, read until the cap and no further, and the
    # whole call's seconds, retries included. Server settings: a user's endpoint never raises them.
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    reply_seconds: float = DEFAULT_REPLY_SECONDS

    def model_for(self, agent: str) -> str:
        """The agent's own model when one is set, else the annotation model."""
        return (self.agent_models.get(agent) or "").strip() or self.model

    def __post_init__(self) -> None:
        if self.constraint not in CONSTRAINTS:
            raise ValueError(f"LLM constraint must be one of {', '.join(CONSTRAINTS)}, not {self.constraint!r}")


def _float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _int_or_none(value: Any, default: int | None) -> int | None:
    if value is None or value == "":
        return default
    if str(value).strip().lower() in {"none", "off"}:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _reply_seconds(value: Any, timeout: float) -> float:
    """The whole call's deadline: as set, else 180 s or three read timeouts, whichever is longer (a lab that gave
    its slow local model a long timeout keeps it)."""
    seconds = _float(value, 0.0)
    return seconds if seconds > 0 else max(DEFAULT_REPLY_SECONDS, 3 * timeout)


def _agent_models(value: Any) -> dict[str, str]:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except ValueError:
            value = {}
    if not isinstance(value, Mapping):
        return {}
    return {str(k).lower(): str(v).strip() for k, v in value.items() if k and v and str(v).strip()}


def _hosts(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else (value or ())
    return tuple(str(item).strip() for item in items if str(item).strip())


def constraint_named(value: Any) -> str | None:
    """The constraint *value* names (one of CONSTRAINTS, or "auto"; case, dashes and "llamacpp" allowed),
    None for an unknown one; empty means none."""
    name = str(value or "none").strip().lower().replace("-", "_")
    name = "llama_cpp" if name == "llamacpp" else name
    return name if name in CONSTRAINTS or name == "auto" else None


def resolve_config(values: Mapping[str, Any]) -> ProviderConfig | None:
    """A config from upper-case keys (PROVIDER, BASE_URL, API_KEY, MODEL, AGENT_MODELS, CONSTRAINT,
    TIMEOUT, MAX_RETRIES, SEED, MAX_TOKENS, PRICES, TRUSTED, ALLOWED_HOSTS, CACHE_SCOPE, MAX_REPLY_BYTES,
    REPLY_SECONDS); None when neither
    a base URL nor a provider is set.

    A provider fills in its preset's base URL, model and key where the values leave them empty.
    A CONSTRAINT of "auto" takes the preset's.
    """
    name = preset_name(values.get("PROVIDER"))
    preset = PRESETS.get(name)
    base_url = str(values.get("BASE_URL") or "").strip() or (preset.base_url if preset else "")
    if not base_url:
        return None
    constraint = constraint_named(values.get("CONSTRAINT")) or str(values.get("CONSTRAINT"))
    if constraint == "auto":
        constraint = preset.constraint if preset else "none"
    prices = values.get("PRICES")
    return ProviderConfig(
        base_url=base_url.rstrip("/"),
        api_key=str(values.get("API_KEY") or "") or (preset.api_key if preset else ""),
        model=str(values.get("MODEL") or "").strip() or (preset.model if preset else ""),
        agent_models=_agent_models(values.get("AGENT_MODELS")),
        provider=name,
        constraint=constraint,
        timeout=_float(values.get("TIMEOUT"), 60.0),
        max_retries=max(0, int(_float(values.get("MAX_RETRIES"), 3))),
        seed=_int_or_none(values.get("SEED"), 42),
        max_tokens=_int_or_none(values.get("MAX_TOKENS"), 1024),
        prices=parse_prices(prices) if isinstance(prices, str) else normalise_prices(prices or {}),
        extra_body=dict(preset.extra_body) if preset else {},
        trusted=values.get("TRUSTED", True) is not False,
        allowed_hosts=_hosts(values.get("ALLOWED_HOSTS")),
        cache_scope=str(values.get("CACHE_SCOPE") or "server"),
        max_reply_bytes=max(1024, int(_float(values.get("MAX_REPLY_BYTES"), DEFAULT_MAX_REPLY_BYTES))),
        reply_seconds=_reply_seconds(values.get("REPLY_SECONDS"), _float(values.get("TIMEOUT"), 60.0)),
    )


def values_from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """The ``HEDIT_LLM_*`` variables as the upper-case keys :func:`resolve_config` reads."""
    out: dict[str, Any] = {}
    for key in ("PROVIDER", "BASE_URL", "API_KEY", "MODEL", "CONSTRAINT", "TIMEOUT", "MAX_RETRIES", "SEED",
                "MAX_TOKENS", "PRICES", "CACHE_TTL", "MAX_REPLY_BYTES", "REPLY_SECONDS"):
        if environ.get(f"HEDIT_LLM_{key}"):
            out[key] = environ[f"HEDIT_LLM_{key}"]
    agent_models = {agent: environ[f"HEDIT_LLM_MODEL_{agent.upper()}"] for agent in AGENTS
                    if environ.get(f"HEDIT_LLM_MODEL_{agent.upper()}")}
    if agent_models:
        out["AGENT_MODELS"] = agent_models
    return out
