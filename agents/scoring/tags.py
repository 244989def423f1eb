"""The tags an annotation is scored on, as the referee (``shared/eval/score_hed.py``) reads them.

Each HED string becomes a set of short base tags, lower-cased, values dropped ("Frequency/550 Hz" counts
as "frequency"), after sidecar column references ({column}) are taken out. Two readings of definitions:

- **kept**: ``Def/X`` counts as the tag ``def``, as the referee counts it (its ``--all``);
- **expanded**: each ``Def/X`` whose definition the string itself holds is replaced by that definition's
  tags, the ``Definition/`` groups are taken out (they declare, they do not happen), and the definition
  machinery (``Def``, ``Def-expand``, ``Definition``) is not counted: what ``shared/eval/score_events.py``
  compares for an event row.

A string hedtools cannot parse earns no tags (the referee gives an unparsable prediction no credit).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from agents.schema import get_schema

DEFINITIONS = re.compile(r"\b(Def|Definition|Def-expand)/", re.IGNORECASE)
_COLUMN_REF = re.compile(r"\{[^}]*\}")
_DEFINITION_TAGS = frozenset({"def", "def-expand", "definition"})
# Distinct strings whose tags one scorer remembers per reading: a table re-read after a review parses
# only what changed.
_REMEMBERED = 8192


def uses_definitions(text: str) -> bool:
    """Whether *text* uses Def/, Definition/ or Def-expand/ (the referee leaves such gold rows out by default)."""
    return bool(DEFINITIONS.search(text or ""))


def _cleaned(text: str) -> str:
    return re.sub(r",\s*,", ",", _COLUMN_REF.sub("", text or "")).strip(" ,")


def _names(tags: Any) -> frozenset[str]:
    return frozenset((t.short_base_tag or t.org_base_tag or str(t)).strip().lower() for t in tags)


class TagScorer:
    """Short base tags and validity of HED strings under one schema version (get one with :func:`scorer_for`)."""

    def __init__(self, version: str) -> None:
        self.version = version
        self.schema = get_schema(version)  # the process's one parsed copy (agents.schema)
        self.kept = functools.lru_cache(maxsize=_REMEMBERED)(self._kept)
        self.expanded = functools.lru_cache(maxsize=_REMEMBERED)(self._expanded)
        self._validator: Any = None

    def tags(self, text: str, *, expand: bool = False) -> frozenset[str]:
        """The tags of *text*: definitions kept (the referee's reading) or expanded."""
        return self.expanded(text or "") if expand else self.kept(text or "")

    def _kept(self, text: str) -> frozenset[str]:
        from hed.models import HedString

        text = _cleaned(text)
        if not text:
            return frozenset()
        try:
            return _names(HedString(text, self.schema).get_all_tags())
        except Exception:  # an unparsable string earns no credit, as with the referee
            return frozenset()

    def _expanded(self, text: str) -> frozenset[str]:
        from hed.models import DefinitionDict, HedString
        from hed.models.model_constants import TopTagReturnType

        text = _cleaned(text)
        if not text:
            return frozenset()
        try:
            definitions = None
            if uses_definitions(text):
                # hedtools reads definitions from the Definition groups alone (a Def beside them is refused).
                groups = HedString(text, self.schema).find_top_level_tags(
                    {"definition"}, include_groups=TopTagReturnType.GROUPS)
                definitions = DefinitionDict([str(group) for group in groups], self.schema)
            hed = HedString(text, self.schema, def_dict=definitions)
            hed.remove_definitions()
            hed.expand_defs()
            return _names(hed.get_all_tags()) - _DEFINITION_TAGS
        except Exception:  # as above: no credit for what cannot be read
            return frozenset()

    def is_valid(self, text: str) -> bool:
        """hedtools finds no error in *text* (placeholders not allowed), as the referee checks a prediction."""
        from hed.errors import ErrorSeverity
        from hed.models import HedString
        from hed.validator import HedValidator

        if not (text or "").strip():
            return False
        if self._validator is None:
            self._validator = HedValidator(self.schema)
        issues = self._validator.validate(HedString(text, self.schema), allow_placeholders=False)
        return not any(i.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR for i in issues)


@functools.cache
def scorer_for(version: str) -> TagScorer:
    """The process's one scorer of *version* (its remembered tags shared by every caller)."""
    return TagScorer(version)
