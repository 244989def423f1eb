"""The column agent's answer: how it is asked for (free JSON, a JSON schema or a llama.cpp grammar) and read.

The answer is one object: ``{"role": ..., "levels": {"<level>": <HED>}, "definitions": {...}, "questions":
[{"level": ..., "question": ...}]}``. Without a decoding constraint a level's HED is a string and definitions
may be given; under a constraint it is the structure of :mod:`agents.annotation.constrained` (tags from the
vocabulary slice only, no definitions). A reply cut short is read as far as it goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.annotation.constrained import MAX_TOP_ITEMS, MODES, StructuredOutput, TagForm
from agents.annotation.parse import MAX_ANNOTATION_CHARS
from agents.annotation.structure import render_structure, structure_of
from agents.columns.context import ROLES
from agents.llm.replies import decode_prefix, json_object

MAX_QUESTIONS = 3
MAX_QUESTION_CHARS = 300
_QUESTION_GRAMMAR_CHARS = 120
_DEFINITION_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_DEFINITION_FORM = re.compile(r"^Definition/([A-Za-z0-9_-]+)\s*,\s*(.*)$", re.DOTALL | re.IGNORECASE)
_LEVELS_KEY = re.compile(r'"levels"\s*:\s*\{')


@dataclass
class ColumnAnswer:
    """What one reply said; *problem* is why it could not be read ("" when it could)."""

    levels: dict[str, str] = field(default_factory=dict)
    role: str = ""
    definitions: dict[str, str] = field(default_factory=dict)
    questions: list[tuple[str, str]] = field(default_factory=list)
    problem: str = ""


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(text: str) -> str:
    return " ".join(str(text).split()).strip("'\"`").casefold()


def _salvage_levels(text: str) -> dict[str, Any]:
    """The complete ``"level": value`` pairs of a ``levels`` object, read up to where a reply broke off."""
    match = _LEVELS_KEY.search(text)
    if not match:
        return {}
    decoder = json.JSONDecoder()
    found: dict[str, Any] = {}
    pos = match.end()

    def skip(at: int, chars: str = " \t\r\n") -> int:
        while at < len(text) and text[at] in chars:
            at += 1
        return at

    while True:
        try:
            key, pos = decoder.raw_decode(text, skip(pos, " \t\r\n,"))
            pos = skip(pos)
            if not isinstance(key, str) or text[pos:pos + 1] != ":":
                return found
            value, pos = decoder.raw_decode(text, skip(pos + 1))
        except (ValueError, RecursionError):
            return found
        found[key] = value


def _unwrap(text: str) -> str:
    """*text* without the parentheses around all of it, if it has them."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and i < len(text) - 1:
                return text  # the first group closes before the end: "(A), (B)"
        text = text[1:-1].strip()
    return text


def _definition(name: Any, value: Any) -> tuple[str, str] | None:
    """(name, the HED it stands for) from ``"Name": "tags"`` or ``"Name": "(Definition/Name, (tags))"``."""
    if not isinstance(name, str) or not isinstance(value, str):
        return None
    name = name.strip().removeprefix("Definition/").removeprefix("Def/")
    text = _unwrap(" ".join(value.split()))
    form = _DEFINITION_FORM.match(text)
    if form:
        name, text = form.group(1), _unwrap(form.group(2))
    if not _DEFINITION_NAME.match(name) or not text:
        return None
    return name, text


class ReplyFormat:
    """Request options and the reader for one decoding mode ("none", "json_schema" or "llama_cpp")."""

    def __init__(self, mode: str, forms: list[TagForm]) -> None:
        self.structured = StructuredOutput(mode, forms) if mode in MODES and forms else None
        self.mode = mode if self.structured is not None else "none"

    # --- request ---------------------------------------------------------------------------
    def request(self, levels: Sequence[str]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(response_format, extra_body) asking for *levels*' HED and nothing else."""
        if self.mode == "llama_cpp":
            return None, {"grammar": self.gbnf(levels)}
        if self.mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "hed_column", "strict": True,
                                                           "schema": self.json_schema(levels)}}, None
        return None, None

    def json_schema(self, levels: Sequence[str]) -> dict[str, Any]:
        assert self.structured is not None
        base = self.structured.json_schema()
        annotation = base["properties"]["tags"]
        question = {"type": "object", "properties": {"level": {"type": "string", "enum": list(levels)},
                                                     "question": {"type": "string"}},
                    "required": ["level", "question"], "additionalProperties": False}
        return {
            "type": "object",
            "properties": {
                "role": {"type": "string", "enum": list(ROLES)},
                "levels": {"type": "object", "properties": {v: annotation for v in levels},
                           "required": list(levels), "additionalProperties": False},
                "questions": {"type": "array", "maxItems": MAX_QUESTIONS, "items": question},
            },
            "required": ["role", "levels", "questions"],
            "additionalProperties": False,
            "$defs": base["$defs"],
        }

    def gbnf(self, levels: Sequence[str]) -> str:
        """The same object as a llama.cpp grammar: every level in order, fixed separators."""
        assert self.structured is not None
        entries = ' ", " '.join(_literal(json.dumps(v) + ": ") + " annotation" for v in levels)
        rules = [
            " ".join(("root ::=", _literal('{"role": '), "role", _literal(', "levels": {'), entries,
                      _literal('}, "questions": ['), "questions?", _literal("]}"))),
            "role ::= " + " | ".join(_literal(json.dumps(r)) for r in ROLES),
            f'annotation ::= "[" item ("," " " item){{0,{MAX_TOP_ITEMS - 1}}} "]"',
            f'questions ::= question ("," " " question){{0,{MAX_QUESTIONS - 1}}}',
            " ".join(("question ::=", _literal('{"level": '), "qlevel", _literal(', "question": "'),
                      f"qchar{{1,{_QUESTION_GRAMMAR_CHARS}}}", _literal('"}'))),
            "qlevel ::= " + " | ".join(_literal(json.dumps(v)) for v in levels),
            r'qchar ::= [^"\\\x7F\x00-\x1F]',
        ]
        # The tag and group rules of the single-annotation grammar, without its root.
        rules += [line for line in self.structured.gbnf().splitlines() if line and not line.startswith("root ::=")]
        return "\n".join(rules) + "\n"

    # --- answer ----------------------------------------------------------------------------
    def _hed(self, value: Any) -> str:
        if isinstance(value, dict):
            value = next((value[k] for k in ("hed", "HED", "annotation", "tags") if k in value), None)
        if isinstance(value, str):
            text = " ".join(value.split()).strip("`").strip()
            if self.structured is None:
                return text
            value = structure_of(text)
        if isinstance(value, list):
            accept = self.structured.accept if self.structured is not None else None
            return render_structure(value, accept)
        return ""

    def read(self, text: str, levels: Sequence[str]) -> ColumnAnswer:
        """What *text* says of *levels*; a reply without a readable ``levels`` object has a *problem*."""
        data = json_object(text or "")
        if data is None and "{" in (text or ""):
            data = decode_prefix(text[text.find("{"):])
        raw = data.get("levels") if isinstance(data, dict) else None
        if not isinstance(raw, dict):
            raw = _salvage_levels(text or "")
            data = data if isinstance(data, dict) else {}
        wanted = {_key(v): v for v in levels}
        answer = ColumnAnswer()
        for key, value in raw.items():
            level = wanted.get(_key(key))
            hed = self._hed(value) if level is not None else ""
            if len(hed) > MAX_ANNOTATION_CHARS:
                hed = ""  # past the annotation limit: that level is drafted offline, like a level left out
            if level is not None and hed:
                answer.levels[level] = hed
        if not answer.levels:
            if not (text or "").strip():
                answer.problem = "the reply was empty"
            elif not raw:
                answer.problem = 'it is not a JSON object with a "levels" object'
            else:
                answer.problem = "it gives no HED for any level asked for"
        role = data.get("role")
        answer.role = role.strip().lower() if isinstance(role, str) and role.strip().lower() in ROLES else ""
        if self.structured is None and isinstance(data.get("definitions"), dict):
            for name, value in data["definitions"].items():
                found = _definition(name, value)
                if found is not None:
                    answer.definitions[found[0]] = found[1]
        answer.questions = self._questions(data.get("questions"), wanted)
        return answer

    @staticmethod
    def _questions(raw: Any, wanted: dict[str, str]) -> list[tuple[str, str]]:
        items = raw.items() if isinstance(raw, dict) else (
            ((q.get("level"), q.get("question")) for q in raw if isinstance(q, dict)) if isinstance(raw, list) else ())
        out: list[tuple[str, str]] = []
        for level, question in items:
            if isinstance(question, str) and question.strip() and isinstance(level, str) and _key(level) in wanted:
                out.append((wanted[_key(level)], " ".join(question.split())[:MAX_QUESTION_CHARS]))
        return out[:max(MAX_QUESTIONS, len(wanted))]


def expand_definitions(hed: str, definitions: dict[str, str]) -> str:
    """*hed* with each ``Def/Name`` of *definitions* replaced by the group it stands for, so it validates alone."""
    for name, content in definitions.items():
        hed = re.sub(rf"(?<![\w/-])Def/{re.escape(name)}(?![\w-])", lambda _m, c=content: f"({c})", hed,
                     flags=re.IGNORECASE)
    return hed
