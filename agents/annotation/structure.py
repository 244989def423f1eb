"""The nested-list form of a HED annotation that structured answers use.

A structured answer is a JSON list whose items are tags or lists (groups).  Both the free-text
reader (:mod:`agents.annotation.parse`) and constrained decoding (:mod:`agents.annotation.constrained`)
read and render it, so it lives here, below both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agents.hedstring import parse_groups
from agents.llm.replies import decode_prefix

Node = str | tuple  # a tag, or a group of nodes


def _key(node: Node) -> Any:
    return node.lower() if isinstance(node, str) else frozenset(_key(c) for c in node)


def _dedupe(nodes: Iterable[Node]) -> list[Node]:
    seen: set[Any] = set()
    out = []
    for node in nodes:
        k = _key(node)
        if k not in seen:
            seen.add(k)
            out.append(node)
    return out


def _normalise(item: Any, accept: Callable[[str], str | None]) -> Node | None:
    if isinstance(item, str):
        return accept(item.strip()) if item.strip() else None
    if isinstance(item, dict):  # {"group": [...]} or {"tag": "..."} from looser models
        item = item.get("group", item.get("tags", item.get("tag")))
        return _normalise(item, accept) if item is not None else None
    if isinstance(item, list | tuple):
        children = _dedupe(n for n in (_normalise(c, accept) for c in item) if n is not None)
        if not children:
            return None
        # A one-member group says nothing a bare tag does not, and may hide a repeat.
        return children[0] if len(children) == 1 else tuple(children)
    return None


def _render_node(node: Node) -> str:
    return node if isinstance(node, str) else "(" + ", ".join(_render_node(c) for c in node) + ")"


def render_structure(items: Iterable[Any], accept: Callable[[str], str | None] | None = None) -> str:
    """A HED string from nested lists of tags; repeats and empty groups are dropped."""
    keep = accept or (lambda s: s)
    top = _dedupe(n for n in (_normalise(i, keep) for i in items) if n is not None)
    return ", ".join(_render_node(n) for n in top)


def structure_of(hed: str) -> list[Any]:
    """Nested lists from a HED string (the inverse of :func:`render_structure`), for examples."""
    return parse_groups(hed)


def _close_truncated(text: str) -> str | None:
    """Cut a truncated JSON text after its last complete value and close what is open."""
    stack: list[str] = []
    in_str = escaped = False
    last: tuple[int, tuple[str, ...]] | None = None
    for i, ch in enumerate(text):
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
                last = (i + 1, tuple(stack))
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}" and stack:
            stack.pop()
            last = (i + 1, tuple(stack))
    if last is None:
        return None
    end, open_ = last
    return text[:end] + "".join(reversed(open_))


def load_structure(text: str) -> list[Any] | str | None:
    """The item list of a JSON answer (or the string under a known key); None without JSON."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    body = text[min(starts):]
    data: Any = None
    for candidate in (body, _close_truncated(body)):
        if candidate is not None:
            data = decode_prefix(candidate)
            if data is not None:
                break
    if isinstance(data, dict):
        for key in ("tags", "annotation", "hed", "hed_string", "HED"):
            if isinstance(data.get(key), list | str):
                return data[key]
        return None
    return data if isinstance(data, list) else None
