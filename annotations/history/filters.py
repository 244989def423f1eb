"""The history filters, declared once: the history page's filter bar, the export page, the API's
parameters and their OpenAPI text and every error message come from :data:`FILTERS`.

``filter_sessions(qs, params)`` takes plain query parameters (a QueryDict works) and returns the
filtered queryset and a dict of field -> message for every value it could not use.  Unknown
parameters are ignored, so callers may pass their whole query string.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from agents.schema import available_versions
from annotations.errors import sentence
from annotations.models import AnnotationSession, SessionStatus, Verdict
from annotations.runs.forms import schema_choices

VALIDITY = {"valid": True, "invalid": False, "unknown": None}
REVIEWED = ("unrated", "reviewed")
LEVEL_RUNS = {"hide": "Hidden", "show": "Shown", "only": "Only these"}
"""Runs that annotate a dataset project's level: a project of 2,000 levels is 2,000 runs in the history."""
EVALUATION_RUNS = {"hide": "Hidden", "show": "Shown", "only": "Only these"}
"""Runs of a model evaluation (annotations.evaluation): a set of 300 descriptions per model evaluated."""
_VERDICT_FIELDS = {Verdict.ACCEPT: "accept_count", Verdict.NEEDS_FIX: "needs_fix_count",
                   Verdict.REJECT: "reject_count"}
MAX_QUERY_CHARS = 200

Sessions = QuerySet[AnnotationSession]


class Invalid(ValueError):
    """A value a filter cannot use; the message goes after the parameter's name ("'x' is not one of a, b")."""


def _one_of(value: str, allowed: Sequence[str]) -> str:
    if value in allowed:
        return value
    raise Invalid(f"{value!r} is not one of {', '.join(allowed)}")


@dataclass(frozen=True)
class HistoryFilter:
    """One filter: its parameter, how the filter bar and the API describe it, and how it filters."""

    name: str
    label: str  # on the filter bar, and in messages, so a message names what the user sees
    kind: str  # how the bar shows it: "search" (a box of its own), "select", "date" or "text"
    help: str  # the API's description of the parameter
    apply: Callable[[Sessions, Any], Sessions]  # the queryset narrowed by a parsed value
    # The parsed value from the parameter's (non-empty) text, raising Invalid; by default one of choices.
    parse: Callable[[str], Any] | None = None
    choices: Callable[[], Sequence[tuple[str, str]]] | None = None  # a select's options, besides "Any"
    api_type: type = str  # the value's type in the API schema
    enum: bool = False  # the API schema lists the choices
    indexed: bool = False  # a COUNT of what it selects reads an index only (no table scan)
    sees_all_only: bool = False  # on the bar only for users who see every run
    not_before: str = ""  # a filter whose value this one's must not precede; when it does, neither applies
    # The pages' value when the parameter is absent (the API and the command line apply none): the bar then
    # offers no "Any", only the choices.
    page_default: str = ""

    def value(self, params: Mapping[str, Any]) -> str:
        return str(params.get(self.name) or "").strip()

    def parsed(self, text: str) -> Any:
        if self.parse is not None:
            return self.parse(text)
        assert self.choices is not None, self.name
        return _one_of(text, [value for value, _ in self.choices()])

    def message(self, text: str) -> str:
        """'Min rating (min_rating): …': the label the page shows, the parameter the API and command
        line take, and a full sentence."""
        named = self.label if self.label.lower() == self.name else f"{self.label} ({self.name})"
        return sentence(f"{named}: {text}")

    def field(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The filter bar's field as plain data (name, label, kind, value and a select's choices)."""
        field: dict[str, Any] = {"name": self.name, "label": self.label, "kind": self.kind,
                                 "value": str(params.get(self.name) or "") or self.page_default}
        if self.choices is not None:
            field["choices"] = [*([] if self.page_default else [("", "Any")]), *self.choices()]
        return field


def _search(q: str) -> str:
    if len(q) > MAX_QUERY_CHARS:
        raise Invalid(f"the search is {len(q)} characters; the limit is {MAX_QUERY_CHARS}")
    return q


def _schema_version(version: str) -> str:
    return _one_of(version, available_versions())


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise Invalid(f"{text!r} is not a date (use YYYY-MM-DD)") from None


def _day_start(day: dt.date) -> dt.datetime:
    # Ranges on the raw column, not created_at__date, so the created_at index still applies.
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


# The first and last representable days bound nothing, and the day after the last one (or a time-zone
# shift of the first) would overflow the date type.
def _from_day(qs: Sessions, day: dt.date) -> Sessions:
    return qs.filter(created_at__gte=_day_start(day)) if day > dt.date.min else qs


def _to_day(qs: Sessions, day: dt.date) -> Sessions:
    return qs.filter(created_at__lt=_day_start(day + dt.timedelta(days=1))) if day < dt.date.max else qs


def _rating(text: str) -> float:
    try:
        minimum = float(text)
    except ValueError:
        minimum = -1.0
    if not 1 <= minimum <= 5:
        raise Invalid(f"{text!r} is not a number from 1 to 5")
    return minimum


def _reviewed(qs: Sessions, reviewed: str) -> Sessions:
    return qs.filter(review_count=0) if reviewed == "unrated" else qs.filter(review_count__gt=0)


def _validity(qs: Sessions, valid: str) -> Sessions:
    return qs.filter(is_valid__isnull=True) if VALIDITY[valid] is None else qs.filter(is_valid=VALIDITY[valid])


def _level_runs(qs: Sessions, choice: str) -> Sessions:
    if choice == "show":
        return qs
    return qs.filter(dataset_level__isnull=choice == "hide")


def _evaluation_runs(qs: Sessions, choice: str) -> Sessions:
    if choice == "show":
        return qs
    return qs.filter(evaluation_batch__isnull=choice == "hide")


# In the order filter_sessions applies them (the benchmarks' queries depend on it).
FILTERS: tuple[HistoryFilter, ...] = (
    HistoryFilter("q", "Search", "search", "Text search in descriptions and annotations.", parse=_search,
                  apply=lambda qs, q: qs.filter(Q(description__icontains=q) | Q(final_annotation__icontains=q)
                                                | Q(machine_annotation__icontains=q))),
    HistoryFilter("status", "Status", "select", f"Session status: {', '.join(SessionStatus.values)}.",
                  choices=lambda: SessionStatus.choices, apply=lambda qs, status: qs.filter(status=status),
                  indexed=True),
    HistoryFilter("valid", "Validity", "select", "Annotation validity.", enum=True, apply=_validity,
                  choices=lambda: [(k, k.capitalize()) for k in VALIDITY]),
    HistoryFilter("schema_version", "Schema", "select", "HED schema version.", choices=schema_choices,
                  parse=_schema_version, apply=lambda qs, version: qs.filter(schema_version=version)),
    HistoryFilter("date_from", "From", "date", "Created on or after this day.", parse=_date, apply=_from_day,
                  api_type=dt.date, indexed=True),
    HistoryFilter("date_to", "To", "date", "Created on or before this day.", parse=_date, apply=_to_day,
                  api_type=dt.date, indexed=True, not_before="date_from"),
    # Callers pass a queryset already limited to what the user may see, so this narrows, never widens.
    HistoryFilter("user", "User", "text", "Owner's username (reviewers and staff).", parse=str,
                  apply=lambda qs, username: qs.filter(user__username=username), indexed=True, sees_all_only=True),
    HistoryFilter("reviewed", "Reviewed", "select", "Review state.", enum=True, apply=_reviewed,
                  choices=lambda: [(k, k.capitalize()) for k in REVIEWED]),
    HistoryFilter("verdict", "Verdict", "select", "Review verdict.", enum=True, choices=lambda: Verdict.choices,
                  apply=lambda qs, verdict: qs.filter(**{f"{_VERDICT_FIELDS[verdict]}__gt": 0})),
    HistoryFilter("min_rating", "Min rating", "select", "Minimum mean rating, 1 to 5.", api_type=float, parse=_rating,
                  choices=lambda: [(str(n), f"{n}+") for n in range(1, 6)],
                  apply=lambda qs, minimum: qs.filter(mean_rating__gte=minimum)),
    # On the foreign key's index: counting the runs of no level reads that index alone.
    HistoryFilter("levels", "Dataset-level runs", "select", "Runs that annotate a dataset project's level: hide, "
                  "show or only them. Default: show (the history and export pages hide them unless asked).",
                  enum=True, choices=lambda: list(LEVEL_RUNS.items()), apply=_level_runs, indexed=True,
                  page_default="hide"),
    HistoryFilter("evaluations", "Evaluation runs", "select", "Runs of a model evaluation (the evaluation page's): "
                  "hide, show or only them. Default: show (the history and export pages hide them unless asked).",
                  enum=True, choices=lambda: list(EVALUATION_RUNS.items()), apply=_evaluation_runs, indexed=True,
                  page_default="hide"),
)
BY_NAME = {f.name: f for f in FILTERS}


def filter_sessions(qs: Sessions, params: Mapping[str, str]) -> tuple[Sessions, dict[str, str]]:
    """Apply every recognised, non-empty filter in *params* to *qs*.

    Returns ``(qs, errors)``; *errors* maps a parameter name to a message naming the bad value.
    The queryset still has every valid filter applied when there are errors.
    """
    errors: dict[str, str] = {}
    text = {f.name: f.value(params) for f in FILTERS}
    for f in FILTERS:
        if "\x00" in text[f.name]:
            # PostgreSQL rejects NUL in a query parameter (a 500); no stored text can contain one.
            errors[f.name] = f.message("the value contains a NUL character")
            text[f.name] = ""
    parsed: dict[str, Any] = {}
    for f in FILTERS:
        if not text[f.name]:
            continue
        try:
            parsed[f.name] = f.parsed(text[f.name])
        except Invalid as exc:
            errors[f.name] = f.message(str(exc))
        if f.not_before and f.name in parsed and f.not_before in parsed and parsed[f.not_before] > parsed[f.name]:
            errors[f.name] = f.message("the end date is before the start date")
            del parsed[f.name], parsed[f.not_before]
    for f in FILTERS:
        if f.name in parsed:
            qs = f.apply(qs, parsed[f.name])
    return qs, errors


def with_page_defaults(params: Mapping[str, Any]) -> dict[str, Any]:
    """*params* as a page reads them: each filter with a page default and no value of its own gets it."""
    found = {key: params.get(key) for key in params}
    for f in FILTERS:
        if f.page_default and not f.value(params):
            found[f.name] = f.page_default
    return found


def active_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The non-empty filter parameters, for links that keep the current filters."""
    return {f.name: value for f in FILTERS if (value := f.value(params))}


def counts_from_index(params: Mapping[str, str]) -> bool:
    """True when counting the sessions these filters select needs no table scan."""
    return all(BY_NAME[name].indexed for name in active_filters(params))


_BAR_ORDER = ("select", "date", "text")  # the bar shows the choices first, then the dates, then free text


def filter_fields(params: Mapping[str, str], *, show_user: bool) -> list[dict[str, Any]]:
    """The filter bar of the history and export pages as plain data, the search box aside.

    Not a Django form: widget templates cost milliseconds per field per request, and the
    checking is filter_sessions' job anyway.
    """
    shown = [f for f in FILTERS if f.kind in _BAR_ORDER and (show_user or not f.sees_all_only)]
    return [f.field(params) for f in sorted(shown, key=lambda f: _BAR_ORDER.index(f.kind))]


def filter_bar_html(fields: list[dict[str, Any]], errors: Mapping[str, str]) -> SafeString:
    """The filter bar's fields (:func:`filter_fields`) as HTML, those in *errors* marked, escaped.

    Written in Python like the history's rows: the template loop over every select's options cost more CPU
    than the page's queries, and under socket load a page's CPU waits its turn for the interpreter lock
    (benchmarks/README.md, "Load", issue 40).
    """
    html: list[str] = []
    for f in fields:
        name, value = escape(f["name"]), f["value"]
        marked = " field--error" if f["name"] in errors else ""
        if f["kind"] == "select":
            options = "".join(f'<option value="{escape(str(v))}"{" selected" if v == value else ""}>'
                              f'{escape(str(label))}</option>' for v, label in f["choices"])
            control = f'<select name="{name}" id="f-{name}">{options}</select>'
        else:
            control = f'<input type="{escape(f["kind"])}" name="{name}" id="f-{name}" value="{escape(value)}">'
        html.append(f'\n    <div class="field{marked}"><label for="f-{name}">{escape(f["label"])}</label>'
                    f'\n      {control}\n    </div>')
    return mark_safe("".join(html))  # every value above is escaped
