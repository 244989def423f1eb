"""Forms of the dataset pages: the upload, a column's kind and template, a level's description, an answer."""

from __future__ import annotations

from typing import Any

from django import forms

from annotations.datasets.inventory_edits import MAX_DESCRIPTION_CHARS
from annotations.datasets.services import MAX_CONCURRENCY, MAX_NAME_CHARS
from annotations.datasets.uploads import FILES_READ, upload_limits
from annotations.models import ColumnKind
from annotations.runs.forms import schema_and_library_choices


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files under one name; each is checked by the dataset reader, not here."""

    widget = MultipleFileInput

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        files = data if isinstance(data, list | tuple) else ([data] if data else [])
        if not files:
            raise forms.ValidationError("Choose a zip of a BIDS dataset or its events files.")
        return [super(MultipleFileField, self).clean(f, initial) for f in files]


class DatasetUploadForm(forms.Form):
    files = MultipleFileField(
        label="Dataset", allow_empty_file=True,
        help_text="One zip of a BIDS folder, or several *_events.tsv files with their *_events.json sidecars.",
        widget=MultipleFileInput(attrs={"accept": ".zip,.tsv,.json,.md,.txt"}))
    name = forms.CharField(max_length=MAX_NAME_CHARS, required=False,
                           help_text="Defaults to the file's name.")
    schema_version = forms.ChoiceField(required=False, label="HED schema",
                                       help_text="Defaults to the dataset's HEDVersion.")
    concurrency = forms.IntegerField(min_value=1, max_value=MAX_CONCURRENCY, initial=4,
                                     help_text="Levels annotated at once.")
    ignore_existing_hed = forms.BooleanField(required=False, label="Ignore existing HED",
                                             help_text="Start from nothing even where the sidecars have HED.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["schema_version"].choices = [("", "The dataset's"), *schema_and_library_choices()]
        limits = upload_limits()
        self.fields["files"].help_text = (
            f"One zip of a BIDS folder (up to {limits.max_archive_bytes // 2**20} MB and {limits.max_entries:,} "
            f"entries), or several *_events.tsv files with their *_events.json sidecars. {FILES_READ}")


class ColumnKindForm(forms.Form):
    kind = forms.ChoiceField(choices=ColumnKind.choices)


class TemplateForm(forms.Form):
    template = forms.CharField(max_length=MAX_DESCRIPTION_CHARS)


class LevelDescriptionForm(forms.Form):
    description = forms.CharField(max_length=MAX_DESCRIPTION_CHARS, widget=forms.Textarea(attrs={"rows": 2}))


class AnswerForm(forms.Form):
    """The lab's answer to an open question: about a level (``level_id``) or a column (``column_id``)."""

    answer = forms.CharField(max_length=MAX_DESCRIPTION_CHARS, widget=forms.Textarea(attrs={"rows": 2}))
    level_id = forms.IntegerField(required=False, min_value=1)
    column_id = forms.IntegerField(required=False, min_value=1)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("level_id") and not data.get("column_id"):
            raise forms.ValidationError("Say which level (or column) the answer is for.")
        return data
