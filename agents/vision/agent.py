"""Image to description through a vision-capable chat model."""

from __future__ import annotations

import base64
import functools
from pathlib import Path

from agents.llm.base import ChatModel


class VisionUnavailable(RuntimeError):
    """No model is configured that can look at images."""


@functools.cache
def _prompt() -> str:
    return (Path(__file__).parent / "prompt.txt").read_text(encoding="utf-8").strip()


async def describe_image(image: bytes, mime_type: str, llm: ChatModel | None) -> str:
    if llm is None:
        raise VisionUnavailable("describing an image needs a vision model; configure an LLM endpoint")
    data_url = f"data:{mime_type};base64,{base64.b64encode(image).decode('ascii')}"
    messages = [{"role": "user", "content": [
        {"type": "text", "text": _prompt()},
        {"type": "image_url", "image_url": {"url": data_url}},
    ]}]
    reply = await llm.complete("vision", messages)
    return reply.text.strip()
