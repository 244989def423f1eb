"""The form that starts an evaluation: which set (saved, the reviewed annotations, or a gold CSV) and which model."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import Count

from annotations.datasets.selectors import visible_projects
from annotations.evaluation.sets import MAX_CSV_BYTES, max_items, visible_sets
from annotations.llm.client import model_choices
from annotations.runs.forms import default_schema, schema_choices

CURRENT_MODEL = ""
UPLOAD = "upload"
REVIEWED_ALL = "reviewed:all"


class StartForm(forms.Form):
    source = forms.ChoiceField(label="Evaluation set")
    file = forms.FileField(
        label="Gold CSV", required=False,
        help_text="Columns description and hed (id and dataset optional), as the shared gold set; "
                  f"up to {MAX_CSV_BYTES // (1024 * 1024)} MiB.",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}))
    model = forms.ChoiceField(label="Model", required=False)
    schema_version = forms.ChoiceField(label="HED schema version", choices=schema_choices)
    watch = forms.BooleanField(label="Watch this set", required=False,
                               help_text="Run it again when the model, the prompts or the schema change.")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        sets = [(f"set:{s.pk}", f"{s.name} ({s.size} items)")
                for s in visible_sets(user).annotate(size=Count("items"))[:50]]
        projects = [(f"reviewed:{p.pk}", f"Reviewed annotations of {p.name}") for p in visible_projects(user)[:50]]
        self.fields["source"].choices = [
            (REVIEWED_ALL, "Reviewed annotations (every run you may see)"), *projects, *sets,
            (UPLOAD, f"Upload a gold CSV (up to {max_items()} rows)")]
        self.fields["model"].choices = [(CURRENT_MODEL, "The model your runs use now"),
                                        *((name, name) for name in model_choices(user))]
        self.fields["schema_version"].initial = default_schema()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("source") == UPLOAD and not data.get("file") and "file" not in self.errors:
            self.add_error("file", "Choose the CSV to upload.")
        return data
