"""The forms of the search, design, acceptance and compare pages (read by GET where they only ask)."""

from __future__ import annotations

from typing import Any

from django import forms

from annotations.models import Expectation
from bidsdata.limits import MAX_NAME_CHARS, MAX_TASK_CHARS
from bidsdata.usage import MAX_QUERY_CHARS
from bidsdata.usage.assembly import TYPE_TAGS
from bidsdata.usage.design import ENCODINGS

MAX_QUERIES_TEXT = 20 * (MAX_QUERY_CHARS + 1)
TOGGLES = {
    "no_context": "Each row is searched with the events still going on at its onset, as (Event-context, (...)): "
                  "leave them out to search only what the row itself says.",
    "expand_defs": "Each Def/... is searched as its name; replace it with its definition's content to search "
                   "what the definition says (a query for Circle finds the rows whose definition shows one).",
    "remove_types": "Take these type tags out of every row first (with their definitions' groups), as hedtools' "
                    "analyses do to leave the conditions and tasks out of a tag search.",
}
"""The three toggles, each explained in a sentence (the page shows them beside each)."""


def _types() -> list[tuple[str, str]]:
    return [(t, t) for t in TYPE_TAGS]


class SearchForm(forms.Form):
    """A search: one query per line, the task and revision, and the three assembly toggles."""

    q = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "autocomplete": "off"}),
                        max_length=MAX_QUERIES_TEXT, label="Queries (one per line)")
    task = forms.CharField(required=False, max_length=MAX_TASK_CHARS)
    revision = forms.CharField(required=False, max_length=64)
    no_context = forms.BooleanField(required=False, label="Leave out ongoing events", help_text=TOGGLES["no_context"])
    expand_defs = forms.BooleanField(required=False, label="Replace definitions", help_text=TOGGLES["expand_defs"])
    remove_types = forms.MultipleChoiceField(required=False, choices=_types, widget=forms.CheckboxSelectMultiple,
                                             label="Remove types", help_text=TOGGLES["remove_types"])
    page = forms.IntegerField(required=False, min_value=1)

    def queries(self) -> list[str]:
        return [line for line in self.cleaned_data["q"].splitlines() if line.strip()]


class SavedQueryForm(forms.Form):
    name = forms.CharField(max_length=200)
    query = forms.CharField(max_length=MAX_QUERY_CHARS, widget=forms.TextInput(attrs={"spellcheck": "false"}))


class RuleForm(forms.Form):
    """A new acceptance rule."""

    name = forms.CharField(max_length=200, required=False, help_text="Leave empty to name it by its query.")
    query = forms.CharField(max_length=MAX_QUERY_CHARS, widget=forms.TextInput(attrs={"spellcheck": "false"}))
    expect = forms.ChoiceField(choices=Expectation.choices, initial=Expectation.NONE)
    task = forms.ChoiceField(required=False, choices=[("", "Every task")])
    column = forms.CharField(max_length=MAX_NAME_CHARS, required=False, help_text="With “as many rows as a level”.")
    level = forms.CharField(max_length=MAX_NAME_CHARS, required=False)
    include_context = forms.BooleanField(required=False, label="With ongoing events")
    replace_defs = forms.BooleanField(required=False, initial=True, label="Definitions replaced")

    def __init__(self, *args: Any, tasks: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["task"].choices = [("", "Every task"), *((t, t) for t in tasks or [])]


class DesignForm(forms.Form):
    type = forms.ChoiceField(choices=_types, required=False, initial="Condition-variable")
    encoding = forms.ChoiceField(choices=[(e, e) for e in ENCODINGS], required=False, initial="one-hot")


class CompareForm(forms.Form):
    """Two revisions of one task, through a set of queries."""

    task = forms.CharField(max_length=MAX_TASK_CHARS, required=False)
    a = forms.CharField(max_length=64, required=False, label="Revision A")
    b = forms.CharField(max_length=64, required=False, label="Revision B")
    q = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}), max_length=MAX_QUERIES_TEXT,
                        label="Queries (one per line)")
    page = forms.IntegerField(required=False, min_value=1)

    def queries(self) -> list[str]:
        return [line for line in self.cleaned_data["q"].splitlines() if line.strip()]
