"""HED display helpers: annotations with each tag's schema description on hover or tap, as a tree."""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

logger = logging.getLogger(__name__)
register = template.Library()

_PARTS = re.compile(r"([(),])")


@functools.lru_cache(maxsize=4096)
def tag_description(tag: str, version: str) -> str:
    """The schema description of *tag* (``Duration/2 s`` works too), or "" if unknown."""
    try:
        from agents.vocabulary import get_vocabulary

        info = get_vocabulary(version).get(tag)
    except Exception:
        # A tooltip is a nicety: an unknown version or a missing vocabulary must not break a page.
        logger.debug("no description for %s in %s", tag, version, exc_info=True)
        return ""
    return info.description if info is not None else ""


def render_hed(hed: str, version: str) -> SafeString:
    out: list[str] = []
    for part in _PARTS.split(hed or ""):
        if part in {"(", ")", ","}:
            out.append(f'<span class="hed-punct">{part}</span>')
            continue
        tag = part.strip()
        if not tag:
            out.append(escape(part))
            continue
        lead, trail = part[: len(part) - len(part.lstrip())], part[len(part.rstrip()):]
        description = tag_description(tag, version)
        title = f' title="{escape(description)}"' if description else ""
        css = "hed-tag" if description else "hed-tag hed-tag--unknown"
        out.append(f'{escape(lead)}<span class="{css}"{title}>{escape(tag)}</span>{escape(trail)}')
    # Every piece above is escaped, so the joined string is safe.
    return mark_safe("".join(out))


def _tree_tag(tag: str, version: str) -> str:
    description = tag_description(tag, version)
    if not description:
        return f'<span class="hed-node hed-node--unknown">{escape(tag)}</span>'
    # <details> opens on a tap, a click or Enter, so the description needs no hover (phones have none);
    # the title still shows it on hover for a mouse.
    return (f'<details class="hed-tip"><summary class="hed-node" title="{escape(description)}">{escape(tag)}'
            f'</summary><p class="hed-tip__text">{escape(description)}</p></details>')


def _tree_items(nodes: list[Any], version: str) -> str:
    items = []
    for node in nodes:
        if isinstance(node, list):
            # A group of plain tags reads best on one line; one holding groups opens into an indented block.
            shape = "nested" if any(isinstance(n, list) for n in node) else "flat"
            items.append(f'<li class="hed-tree__group hed-tree__group--{shape}">'
                         '<span class="hed-punct" aria-hidden="true">(</span>'
                         f'<ul role="group">{_tree_items(node, version)}</ul>'
                         '<span class="hed-punct" aria-hidden="true">)</span></li>')
        else:
            items.append(f"<li>{_tree_tag(str(node), version)}</li>")
    return "".join(items)


def render_hed_tree(hed: str, version: str) -> SafeString:
    """*hed* as nested lists, one per parenthesised group, from the project's group parser."""
    from agents.hedstring import parse_groups

    # Every tag is escaped in _tree_tag, so the markup is safe.
    return mark_safe(f'<ul class="hed-tree">{_tree_items(parse_groups(hed or ""), version)}</ul>')


@register.filter(name="hed_tree")
def hed_tree_filter(hed: str, version: Any = "") -> SafeString:
    """``{{ annotation|hed_tree:session.schema_version }}``: the groups indented, descriptions on tap."""
    from agents.schema import DEFAULT_SCHEMA_VERSION

    return render_hed_tree(str(hed or ""), str(version or DEFAULT_SCHEMA_VERSION))


@register.filter(name="hed")
def hed_filter(hed: str, version: Any = "") -> SafeString:
    """``{{ annotation|hed:session.schema_version }}``: tags wrapped in spans with hover descriptions."""
    from agents.schema import DEFAULT_SCHEMA_VERSION

    return render_hed(str(hed or ""), str(version or DEFAULT_SCHEMA_VERSION))


@register.simple_tag
def hed_description(tag: str, version: str) -> str:
    return tag_description(str(tag), str(version))


# Outputs that only repeat the step's action line ("Valid" -> "no errors", "Faithful" -> "faithful").
_ECHOES = {"validation", "evaluation"}


@register.filter
def step_output(step: Any) -> str:
    """A step's output when it adds to the action line, else "".

    Validation lists its issues and evaluation/feedback/assessment show their feedback line,
    so only outputs like the vision agent's description remain.
    """
    output = str(getattr(step, "output", "") or "")
    if step.agent in _ECHOES or output == (step.feedback or "") or step.issues:
        return ""
    return output
