"""Forms of the portal pages; the checks that matter live in services, these only parse input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.conf import settings

from agents.schema import available_versions
from agents.state import MAX_DESCRIPTION_CHARS, WorkflowOptions
from annotations.filters import REVIEWED, VALIDITY
from annotations.models import SessionStatus, Verdict


def schema_choices() -> list[tuple[str, str]]:
    # Newest first: the version most people want is at the top of the list.
    return [(v, v) for v in reversed(available_versions())]


def default_schema() -> str:
    wanted = getattr(settings, "HEDIT_DEFAULT_SCHEMA", "") or WorkflowOptions().schema_version
    return wanted if wanted in available_versions() else WorkflowOptions().schema_version


class AnnotateForm(forms.Form):
    description = forms.CharField(
        required=False, strip=True, label="Event description",
        help_text=f"Plain English, up to {MAX_DESCRIPTION_CHARS} characters.",
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": MAX_DESCRIPTION_CHARS,
                                     "placeholder": "A red circle appears at the centre of the screen "
                                                    "and the participant presses the left button."}))
    schema_version = forms.ChoiceField(label="HED schema version", choices=schema_choices)
    max_validation_attempts = forms.IntegerField(
        label="Max validation attempts", min_value=1, max_value=10, initial=WorkflowOptions().max_validation_attempts)
    run_assessment = forms.BooleanField(label="Run the completeness assessment", required=False)
    no_extend = forms.BooleanField(label="Forbid tag extensions", required=False,
                                   help_text="Only tags that exist in the schema.")
    image = forms.FileField(
        label="Stimulus image (optional)", required=False,
        help_text="PNG or JPEG; described by the vision agent when a language model is configured.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg"}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["schema_version"].initial = default_schema()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not (data.get("description") or "").strip() and not data.get("image") and not self.errors:
            self.add_error("description", "The description is empty: describe the event or upload a stimulus image.")
        return data

    def option_data(self) -> dict[str, Any]:
        keys = ("schema_version", "max_validation_attempts", "run_assessment", "no_extend")
        return {k: self.cleaned_data[k] for k in keys}


class ValidateForm(forms.Form):
    hed = forms.CharField(label="HED string", required=False, strip=True,
                          widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false",
                                                       "placeholder": "Sensory-event, Visual-presentation, "
                                                                      "(Red, Circle)"}))
    schema_version = forms.ChoiceField(label="HED schema version", choices=schema_choices)
    no_extend = forms.BooleanField(label="Count tag extensions as errors", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["schema_version"].initial = default_schema()


def _blank(choices: list[tuple[str, str]], label: str = "Any") -> list[tuple[str, str]]:
    return [("", label), *choices]


def history_filter_fields(params: Mapping[str, str], *, show_user: bool) -> list[dict[str, Any]]:
    """The history filter bar as plain data (name, label, kind, value, choices).

    Not a Django form: widget templates cost milliseconds per field per request, and the
    checking is annotations.filters.filter_sessions' job anyway.
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
    (the export page); annotations.filters.filter_sessions does the checking."""

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
