"""A model configuration: what a lab chooses between when it picks who annotates its events.

Provider, model, constrained decoding, prompt version and schema: two runs of one configuration should
annotate alike, and the evaluation table has one row per configuration.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from agents.llm.base import constraint_of
from agents.llm.providers import ProviderConfig
from agents.prompt_version import prompt_version

OFFLINE_PROVIDER = "offline"
OFFLINE_MODEL = "offline annotator"
OFFLINE_CHOICE = "offline"
"""How a user names the offline annotator when choosing a model (``evaluate --model offline``)."""


@dataclass(frozen=True, order=True)
class ModelConfiguration:
    provider: str  # a preset's name, the endpoint's host, or "offline"
    model: str
    constraint: str  # none, json_schema or llama_cpp; "" for the offline annotator (no decoding at all)
    prompt_version: str  # "" for the offline annotator (no prompt)
    schema_version: str

    @property
    def is_offline(self) -> bool:
        return self.provider == OFFLINE_PROVIDER

    @property
    def constrained(self) -> bool | None:
        """Whether decoding is constrained to the schema's vocabulary; None for the offline annotator."""
        return None if self.is_offline else self.constraint not in ("", "none")

    @property
    def key(self) -> str:
        """One string naming the configuration (links, sorting, downloads)."""
        return "|".join((self.provider, self.model, self.constraint, self.prompt_version, self.schema_version))

    @property
    def label(self) -> str:
        if self.is_offline:
            return f"{OFFLINE_MODEL}, HED {self.schema_version}"
        decoding = f"constrained ({self.constraint})" if self.constrained else "free decoding"
        where = f" via {self.provider}" if self.provider else ""
        prompts = f", prompts {self.prompt_version}" if self.prompt_version else ""
        return f"{self.model or '(no model)'}{where}, {decoding}{prompts}, HED {self.schema_version}"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "constrained": self.constrained}


def _host(base_url: str) -> str:
    parts = urlsplit(base_url)
    return parts.netloc or base_url


def offline_configuration(schema_version: str) -> ModelConfiguration:
    return ModelConfiguration(OFFLINE_PROVIDER, OFFLINE_MODEL, "", "", schema_version)


def configuration_of(llm: object | None, schema_version: str, *, model: str = "") -> ModelConfiguration:
    """The configuration a run with *llm* (None: the offline annotator) has; *model* names a model that could
    not be built (its runs fail, and still belong to it)."""
    if llm is None:
        return offline_configuration(schema_version)
    config = getattr(llm, "config", None)
    if isinstance(config, ProviderConfig):
        return ModelConfiguration(config.provider or _host(config.base_url), config.model_for("annotation"),
                                  config.constraint, prompt_version(), schema_version)
    name = getattr(llm, "model", None)
    return ModelConfiguration(str(getattr(llm, "provider", "") or ""), str(name) if isinstance(name, str) else model,
                              constraint_of(llm), prompt_version(), schema_version)
