"""What a call cost: the provider's own figure when it reports one, else a price table."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

logger = logging.getLogger(__name__)

Price = tuple[float, float]  # USD per one million input tokens, per one million output tokens

# A few well-known list prices (USD per 1M tokens); HEDIT_LLM_PRICES overrides or extends them.
DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-sonnet-4": (3.00, 15.00),
    "gemini-2.5-flash": (0.30, 2.50),
}


def parse_prices(text: str | None) -> dict[str, Price]:
    """``{"model": [input_per_1M, output_per_1M]}`` as JSON; bad entries are skipped with a warning."""
    if not text or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        logger.warning("HEDIT_LLM_PRICES is not valid JSON; using the built-in prices")
        return {}
    return normalise_prices(data)


def normalise_prices(data: object) -> dict[str, Price]:
    if not isinstance(data, Mapping):
        logger.warning("LLM prices must map model names to [input, output]; ignoring them")
        return {}
    out: dict[str, Price] = {}
    for model, pair in data.items():
        try:
            inp, outp = (float(x) for x in pair)
        except (TypeError, ValueError):
            logger.warning("ignoring the price of %s: expected [input_per_1M, output_per_1M]", model)
            continue
        out[str(model)] = (inp, outp)
    return out


def price_for(model: str, prices: Mapping[str, Price] | None = None) -> Price | None:
    """The price of *model*: exact name, then without a router prefix, then the longest known prefix.

    Dated snapshots ("gpt-4o-mini-2024-07-18") and OpenRouter names ("openai/gpt-4o-mini")
    resolve to their family's price.
    """
    table = {**DEFAULT_PRICES, **(prices or {})}
    if model in table:
        return table[model]
    bare = model.rsplit("/", 1)[-1]
    if bare in table:
        return table[bare]
    matches = [name for name in table if bare.startswith(name + "-") or bare.startswith(name + ":")]
    return table[max(matches, key=len)] if matches else None


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int, *,
             prices: Mapping[str, Price] | None = None, reported: float | None = None) -> float:
    """USD for one call; a cost the provider reported wins, unknown models cost 0."""
    if reported is not None and reported >= 0:
        return float(reported)
    price = price_for(model, prices)
    if price is None:
        return 0.0
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000
