"""Editing a stored project's inventory: a column's kind, a column's or level's description, a value column's
template.

Each edit is checked before it is stored (a lab's text by :func:`clean_text`, a template by hedtools) and
refused with a :class:`~.errors.DatasetRequestError` naming the field. An edit starts no run: runs are
:mod:`.services`' (which stores an answer's description through :func:`set_level_description` and queues the
level's run).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from django.db import transaction

from annotations.datasets.errors import DatasetRequestError
from annotations.models import ColumnKind, DatasetColumn, DatasetFile, DatasetLevel, DatasetProject
from bidsdata.columns import made_up_description
from bidsdata.limits import MAX_NAME_CHARS
from bidsdata.patterns import column_values, pattern_counts, pattern_description
from bidsdata.schemas import validate_hed_string
from bidsdata.tsv import NA_VALUES, rows
from bidsdata.value_templates import propose_value_template

MAX_LEVELS_PER_COLUMN = 200  # a column switched to categorical with more distinct values stays a value column
MAX_DESCRIPTION_CHARS = 2000


def _value_counts(texts: Iterable[str], column: str, limit: int) -> dict[str, int]:
    """Counts of *column*'s values across events files (n/a left out); at most *limit* distinct values."""
    counts: dict[str, int] = {}
    for text in texts:
        found = rows(text)
        header = next(found, [])
        if column not in header:
            continue
        index = header.index(column)
        for row in found:
            value = row[index] if len(row) > index else ""
            if value in NA_VALUES or (value not in counts and len(counts) >= limit):
                continue
            counts[value] = counts.get(value, 0) + 1
    return counts


def _column_values(project: DatasetProject, column: DatasetColumn) -> dict[str, int]:
    """Counts of a column's values across its task's events files (n/a left out)."""
    files = DatasetFile.objects.filter(project=project, path__in=column.task.events_files)
    # One past the limit is enough to refuse; more would only cost memory.
    return _value_counts(files.values_list("text", flat=True).iterator(), column.name, MAX_LEVELS_PER_COLUMN + 1)


@transaction.atomic
def set_column_kind(column: DatasetColumn, kind: Any) -> DatasetColumn:
    """Make a column categorical, value or skipped; levels and templates follow."""
    if kind not in ColumnKind.values:
        raise DatasetRequestError("kind", f"kind must be one of {', '.join(ColumnKind.values)}, not {kind!r}")
    if kind == column.kind:
        return column
    project = column.task.project
    if kind == ColumnKind.CATEGORICAL and not column.levels.exists():
        counts = _column_values(project, column)
        levels = [DatasetLevel(column=column, value=value, count=count,
                               description=made_up_description(column.name, value), needs_description=True)
                  for value, count in sorted(counts.items())]
        if len(counts) > MAX_LEVELS_PER_COLUMN:  # too many to annotate one by one: by form, if they have a few
            files = DatasetFile.objects.filter(project=project, path__in=column.task.events_files)
            forms = pattern_counts(column_values(files.values_list("text", flat=True).iterator(), column.name))
            if forms is None:
                raise DatasetRequestError("kind", f"column {column.name} has more than {MAX_LEVELS_PER_COLUMN} "
                                          "distinct values, and they are not a few forms of marker strings: skip "
                                          "it, or give it a # template")
            column.by_pattern = True
            levels = [DatasetLevel(column=column, value=form, count=count, description=pattern_description(form),
                                   needs_description=True) for form, count in sorted(forms.items())]
        if not counts:
            raise DatasetRequestError("kind", f"column {column.name} has no values to annotate as levels")
        longest = max((level.value for level in levels), key=len)
        if len(longest) > MAX_NAME_CHARS:  # a level is stored in a column that wide (PostgreSQL would refuse it)
            raise DatasetRequestError("kind", f"column {column.name} has a value of {len(longest):,} characters, more "
                                      f"than the {MAX_NAME_CHARS} a level may have: give it a # template, or skip it")
        DatasetLevel.objects.bulk_create(levels)
    if kind == ColumnKind.VALUE and not column.template:
        column.template = propose_value_template(column.name, description=column.description, units=column.units,
                                                 sample_values=column.sample_values, hed_version=project.schema_version)
    column.kind = kind
    column.save(update_fields=["kind", "template", "by_pattern"])
    return column


_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that show nothing on their own: controls, formats (zero-width space and joiners, BOM,
direction marks), surrogates, private use, unassigned, separators and marks that only combine."""


def visible(char: str) -> bool:
    """Whether *char* shows something on a page (a letter, digit, punctuation, symbol)."""
    return unicodedata.category(char) not in _INVISIBLE


def clean_text(value: Any, field: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """*value* as one line of text for *field* (a description, an answer, a template), or a
    :class:`DatasetRequestError` naming *field*: every text a lab writes into a project passes here (the page's
    answer box and level form, the API, the command line's ``--descriptions`` and the lab's table), so one rule
    refuses an empty text, one of only invisible characters (zero-width spaces, controls), or an overlong one."""
    if not isinstance(value, str):
        raise DatasetRequestError(field, f"{field} must be text")
    text = " ".join(value.split())
    if not text:
        raise DatasetRequestError(field, f"{field} must not be empty")
    if not any(visible(ch) for ch in text):
        raise DatasetRequestError(field, f"{field} has no visible character: only zero-width, control or other "
                                  "invisible characters")
    if len(text) > limit:
        raise DatasetRequestError(field, f"{field} is {len(text)} characters; the limit is {limit}")
    if "\x00" in text:
        raise DatasetRequestError(field, f"{field} must not contain NUL characters")
    return text


def set_level_description(level: DatasetLevel, description: Any) -> DatasetLevel:
    """A human description replaces the one made up from the column and level names."""
    level.description = clean_text(description, "description")
    level.needs_description = False
    level.save(update_fields=["description", "needs_description"])
    return level


def set_column_description(column: DatasetColumn, description: Any) -> DatasetColumn:
    """A human description of what a column records (the sidecar's ``Description``)."""
    column.description = clean_text(description, "description")
    column.needs_description = False
    column.save(update_fields=["description", "needs_description"])
    return column


def set_column_template(column: DatasetColumn, template: Any) -> DatasetColumn:
    """A value column's ``#`` template, stored only when it validates with placeholders allowed."""
    text = clean_text(template, "template")
    if column.kind != ColumnKind.VALUE:
        raise DatasetRequestError("template", f"column {column.name} is not a value column")
    if text.count("#") != 1:
        raise DatasetRequestError("template", "a value column's template needs exactly one # placeholder")
    issues = validate_hed_string(text, column.task.project.schema_version, allow_placeholders=True)
    if issues:
        raise DatasetRequestError("template", f"the template does not validate: {issues[0].get('message', '')}"
                                  .strip().splitlines()[0])
    column.template = text
    column.save(update_fields=["template"])
    return column


__all__ = ["MAX_DESCRIPTION_CHARS", "MAX_LEVELS_PER_COLUMN", "clean_text", "set_column_description",
           "set_column_kind", "set_column_template", "set_level_description"]
