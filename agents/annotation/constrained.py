"""Constrained decoding: the model writes a structure of tags and groups, never free text.

The structure is ``{"tags": [item, ...]}`` where an item is a tag string or a list of items
(a group).  Tag strings can only be names from the retrieved vocabulary slice (an enum) or
``Name/value unit`` forms matching the tag's value class and units (a pattern), so the
endpoint cannot produce an unknown tag.  The same shape is offered as a JSON schema
(OpenAI, vLLM, Ollama) or as a GBNF grammar (llama.cpp server); :func:`~agents.annotation.structure.render_structure`
turns the answer into a HED string without repeated tags or empty groups.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from agents.annotation.parse import parse_annotation
from agents.annotation.structure import load_structure, render_structure, structure_of
from agents.hedstring import base_name
from agents.vocabulary import TagInfo, Vocabulary

logger = logging.getLogger(__name__)

MODES = ("json_schema", "llama_cpp")
MAX_TOP_ITEMS = 8
MAX_GROUP_ITEMS = 5
# Tags that need definitions or a top-level group of their own; a constrained answer cannot place them.
_EXCLUDED = {"def", "def-expand", "definition", "onset", "offset", "inset", "delay", "duration",
             "event-context", "collection", "condition-variable", "control-variable"}
_SI_PREFIXES = ("m", "k", "u")

# Value rules, as (JSON-schema regex, GBNF expression, prompt placeholder).
_NUMBER = (r"-?[0-9]{1,6}(\.[0-9]{1,4})?", '"-"? [0-9]{1,6} ("." [0-9]{1,4})?', "<number>")
_NAME = (r"[A-Za-z0-9][A-Za-z0-9_-]{0,23}", "[A-Za-z0-9] [A-Za-z0-9_-]{0,23}", "<name>")
_TEXT = (r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}", "[A-Za-z0-9] [A-Za-z0-9_.-]{0,39}", "<text>")
_DATE = (r"[0-9]{4}-[0-9]{2}-[0-9]{2}", '[0-9]{4} "-" [0-9]{2} "-" [0-9]{2}', "<YYYY-MM-DD>")


@dataclass(frozen=True)
class TagForm:
    """One tag as the model may write it: a plain name or a valued form with its rule."""

    name: str
    value: tuple[str, str, str] | None = None  # (regex, gbnf, placeholder) of the value
    units: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        if self.value is None:
            return self.name
        unit = f" <unit: {'|'.join(self.units)}>" if self.units else ""
        return f"{self.name}/{self.value[2]}{unit}"

    @property
    def regex(self) -> str:
        assert self.value is not None
        units = f" ({'|'.join(_re_escape(u) for u in self.units)})" if self.units else ""
        return f"{_re_escape(self.name)}/{self.value[0]}{units}"


def _re_escape(text: str) -> str:
    # Only the metacharacters: patterns must stay in the subset every schema converter reads.
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _units(info: TagInfo, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The tag's units, default first, plus the common SI-prefixed symbols it accepts (ms, kHz)."""
    base = [u for u in info.units if u != "$"]  # "$" goes before the value; leave it to free text
    if info.default_unit in base:
        base.remove(info.default_unit)
        base.insert(0, info.default_unit)
    symbols = [u for u in base if len(u) <= 3]
    prefixed = [p + u for u in symbols for p in _SI_PREFIXES + (("c",) if u == "m" else ())]
    out = list(dict.fromkeys(base[:1] + [u for u in prefixed if vocabulary.unit_spelling(info.name, u) == u]
                             + base[1:]))
    return tuple(out[:10])


def tag_forms(tags: Iterable[TagInfo], vocabulary: Vocabulary) -> list[TagForm]:
    """The forms the model may write for *tags*, leaving out tags a structure cannot place."""
    forms = []
    for info in tags:
        if info.name.lower() in _EXCLUDED or vocabulary.is_deprecated(info.name):
            continue
        if not info.takes_value:
            forms.append(TagForm(info.name))
            continue
        classes = set(info.value_classes)
        if classes == {"numericClass"}:
            forms.append(TagForm(info.name, _NUMBER, _units(info, vocabulary)))
        elif "dateTimeClass" in classes:
            forms.append(TagForm(info.name, _DATE))
        elif "textClass" in classes:
            forms.append(TagForm(info.name, _TEXT))
        else:
            forms.append(TagForm(info.name, _NAME))
    return forms


def tag_lines(forms: list[TagForm], infos: dict[str, TagInfo], meaning: Callable[[str], str]) -> str:
    """The vocabulary slice as the prompt lists it: each tag's form, its parent and its meaning (as *meaning*
    shortens the schema's description)."""
    lines = []
    for form in forms:
        info = infos[form.name]
        parent = f" [{info.parent}]" if info.parent else ""
        # The model should know which tags the library brings: they are the reason the version names it.
        library = f" ({info.library} library)" if info.library else ""
        lines.append(f"{form.label}{parent}{library}: {meaning(info.description)}")
    return "\n".join(lines)


class StructuredOutput:
    """The request options and the answer reader for one vocabulary slice under one mode."""

    def __init__(self, mode: str, forms: list[TagForm]) -> None:
        if mode not in MODES:
            raise ValueError(f"constraint mode must be one of {', '.join(MODES)}")
        self.mode = mode
        self.forms = forms
        self._plain = {f.name.lower(): f.name for f in forms if f.value is None}
        self._valued = {f.name.lower(): (f, re.compile(f.regex, re.IGNORECASE)) for f in forms if f.value}

    # --- request ---------------------------------------------------------------------------
    def json_schema(self) -> dict[str, Any]:
        alternatives: list[dict[str, Any]] = []
        if self._plain:
            alternatives.append({"type": "string", "enum": sorted(self._plain.values())})
        alternatives += [{"type": "string", "pattern": f"^{f.regex}$"} for f, _ in self._valued.values()]
        tag = alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}
        ref = {"$ref": "#/$defs/tag"}
        return {
            "type": "object",
            "properties": {"tags": {"type": "array", "minItems": 1, "maxItems": MAX_TOP_ITEMS,
                                    "items": {"anyOf": [ref, {"$ref": "#/$defs/group"}]}}},
            "required": ["tags"],
            "additionalProperties": False,
            "$defs": {
                "tag": tag,
                "group": {"type": "array", "minItems": 1, "maxItems": MAX_GROUP_ITEMS,
                          "items": {"anyOf": [ref, {"$ref": "#/$defs/subgroup"}]}},
                "subgroup": {"type": "array", "minItems": 1, "maxItems": MAX_GROUP_ITEMS, "items": ref},
            },
        }

    def gbnf(self) -> str:
        """The same shape as a llama.cpp grammar, with fixed separators so small models cannot wander."""
        rules = [
            f'root ::= "{{\\"tags\\": [" item ("," " " item){{0,{MAX_TOP_ITEMS - 1}}} "]}}"',
            "item ::= tag | group",
            f'group ::= "[" member ("," " " member){{0,{MAX_GROUP_ITEMS - 1}}} "]"',
            "member ::= tag | subgroup",
            f'subgroup ::= "[" tag ("," " " tag){{0,{MAX_GROUP_ITEMS - 1}}} "]"',
            "tag ::= \"\\\"\" name \"\\\"\"",
        ]
        names = []
        if self._plain:
            rules.append("plain ::= " + " | ".join(_gbnf_literal(n) for n in sorted(self._plain.values())))
            names.append("plain")
        for i, (form, _) in enumerate(self._valued.values()):
            assert form.value is not None
            units = (' " " (' + " | ".join(_gbnf_literal(u) for u in form.units) + ")") if form.units else ""
            rules.append(f"v{i} ::= {_gbnf_literal(form.name + '/')} {form.value[1]}{units}")
            names.append(f"v{i}")
        rules.append("name ::= " + " | ".join(names))
        return "\n".join(rules) + "\n"

    def request(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(response_format, extra_body) for the chat request."""
        if self.mode == "llama_cpp":
            # A grammar rather than a schema: llama-cpp-python silently drops a schema it cannot convert.
            return None, {"grammar": self.gbnf()}
        return {"type": "json_schema",
                "json_schema": {"name": "hed_annotation", "strict": True, "schema": self.json_schema()}}, None

    # --- answer ----------------------------------------------------------------------------
    def accept(self, tag: str) -> str | None:
        """The tag as the schema spells it when it is one the model was allowed, else None."""
        text = " ".join(tag.split())
        if "/" not in text:
            return self._plain.get(text.lower())
        entry = self._valued.get(base_name(text).lower())
        if entry is None or not entry[1].fullmatch(text):
            return None
        return entry[0].name + text[text.find("/"):]

    def read(self, reply: str) -> str:
        """The HED string an answer describes; "" when nothing usable is in it."""
        data = load_structure(reply)
        if isinstance(data, str):
            data = structure_of(data)
        if data is None:
            # An endpoint that ignored the constraint answered in prose; keep only allowed tags.
            text = parse_annotation(reply)
            data = structure_of(text) if text else []
        hed = render_structure(data, self.accept)
        if not hed and reply.strip():
            logger.info("structured answer held no allowed tag: %r", reply[:200])
        return hed
