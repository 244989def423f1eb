"""History filters as form fields, shared by the history and export pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from annotations.history.filters import REVIEWED, VALIDITY
from annotations.models import SessionStatus, Verdict
from annotations.runs.forms import schema_choices


def _blank(choices: list[tuple[str, str]], label: str = "Any") -> list[tuple[str, str]]:
    return [("", label), *choices]


def history_filter_fields(params: Mapping[str, str], *, show_user: bool) -> list[dict[str, Any]]:
    """The history filter bar as plain data (name, label, kind, value, choices).

    Not a Django form: widget templates cost milliseconds per field per request, and the
    checking is annotations.history.filters.filter_sessions' job anyway.
    """
    selects: list[tuple[str, str, list[tuple[str, str]]]] = [
        ("status", "Status", _blank(list(SessionStatus.choices))),
        ("valid", "Validity", _blank([(k, k.capitalize()) for k in VALIDITY])),
        ("schema_version", "Schema", _blank(schema_choices())),
        ("reviewed", "Reviewed", _blank([(k, k.capitalize()) for k in REVIEWED])),
        ("verdict", "Verdict", _blank(list(Verdict.choices))),
        ("min_rating", "Min rating", _blank([(str(n), f"{n}+") for n in range(1, 6)])),
    ]
    fields: list[dict[str, Any]] = [
        {"name": name, "label": label, "kind": "select", "value": str(params.get(name) or ""), "choices": choices}
        for name, label, choices in selects]
    fields += [{"name": name, "label": label, "kind": "date", "value": str(params.get(name) or "")}
               for name, label in (("date_from", "From"), ("date_to", "To"))]
    if show_user:
        fields.append({"name": "user", "label": "User", "kind": "text", "value": str(params.get("user") or "")})
    return fields


class HistoryFilterForm(forms.Form):
    """The history filters as a Django form, for pages where widget rendering cost does not matter
    (the export page); annotations.history.filters.filter_sessions does the checking."""

    q = forms.CharField(label="Search", required=False,
                        widget=forms.TextInput(attrs={"type": "search", "placeholder": "Description or tags"}))
    status = forms.ChoiceField(label="Status", required=False, choices=_blank(list(SessionStatus.choices)))
    valid = forms.ChoiceField(label="Validity", required=False,
                              choices=_blank([(k, k.capitalize()) for k in VALIDITY]))
    schema_version = forms.ChoiceField(label="Schema", required=False,
                                       choices=lambda: _blank(schema_choices()))
    date_from = forms.DateField(label="From", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(label="To", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    user = forms.CharField(label="User", required=False)
    reviewed = forms.ChoiceField(label="Reviewed", required=False,
                                 choices=_blank([(k, k.capitalize()) for k in REVIEWED]))
    verdict = forms.ChoiceField(label="Verdict", required=False, choices=_blank(list(Verdict.choices)))
    min_rating = forms.ChoiceField(label="Min rating", required=False,
                                   choices=_blank([(str(n), f"{n}+") for n in range(1, 6)]))

    def __init__(self, *args: Any, show_user: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not show_user:
            del self.fields["user"]
