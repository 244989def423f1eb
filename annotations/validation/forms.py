"""The validation page's form."""

from __future__ import annotations

from typing import Any

from django import forms

from agents.annotation.parse import MAX_ANNOTATION_CHARS
from annotations.runs.forms import default_schema, schema_choices

MAX_HED_CHARS = MAX_ANNOTATION_CHARS  # the one limit of a HED string (agents.annotation.parse)
"""The longest HED string the validator page and its fragment endpoint check (the API docs say it too)."""


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
