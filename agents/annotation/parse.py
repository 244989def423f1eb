"""Read a HED string out of a model's free-text answer."""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"```(?:[a-zA-Z]+)?\s*(.*?)```", re.DOTALL)
_PREFIX = re.compile(r"^\s*(?:hed(?: annotation| string)?|annotation|answer)\s*[:=-]\s*", re.IGNORECASE)
_JSON_KEYS = ("annotation", "hed", "hed_string", "HED")


def _from_json(text: str) -> str | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start : end + 1])
    except ValueError:
        return None
    if isinstance(data, dict):
        for key in _JSON_KEYS:
            if isinstance(data.get(key), str):
                return data[key]
    return None


def parse_annotation(reply: str) -> str:
    """The HED string in *reply*, or "" when there is none to be found."""
    text = reply.strip()
    if not text:
        return ""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    from_json = _from_json(text)
    if from_json is not None:
        text = from_json
    lines = [ln for ln in (ln.strip() for ln in text.splitlines()) if ln]
    # Chatty answers put the annotation on its own line; prefer the labelled or the tag-like one.
    for line in lines:
        if _PREFIX.match(line):
            text = _PREFIX.sub("", line)
            break
    else:
        tagged = [ln for ln in lines if "," in ln or re.fullmatch(r"[\w/()\- ]+", ln)]
        text = tagged[0] if tagged else (lines[0] if lines else "")
    text = text.strip().strip("`'\"").strip()
    if not re.search(r"[A-Za-z]", text):
        return ""
    return text
