"""The annotate form and the schema choices every form offers."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from agents.schema import available_versions, library_versions
from agents.state import MAX_DESCRIPTION_CHARS, WorkflowOptions


def schema_choices() -> list[tuple[str, str]]:
    # Newest first: the version most people want is at the top of the list.
    return [(v, v) for v in reversed(available_versions())]


def schema_and_library_choices() -> list[tuple[str, str]]:
    """The standard versions, then every library hedtools ships (partnered ones bring their standard schema)."""
    return [*schema_choices(), *((v, f"{v} (library)") for v in library_versions())]


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
    schema_version = forms.ChoiceField(label="HED schema version", choices=schema_and_library_choices)
    max_validation_attempts = forms.IntegerField(
        label="Max validation attempts", min_value=1, max_value=10, initial=WorkflowOptions().max_validation_attempts)
    run_assessment = forms.BooleanField(label="Run the completeness assessment", required=False)
    no_extend = forms.BooleanField(label="Forbid tag extensions", required=False,
                                   help_text="Only tags that exist in the schema.")
    image = forms.FileField(
        label="Stimulus image (optional)", required=False,
        help_text="PNG or JPEG; described by the vision agent when a language model is configured.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg"}))

    def __init__(self, *args: Any, vision_model: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["schema_version"].initial = default_schema()
        if vision_model is not None:
            # Say up front what the submission check (services.check_vision) will say anyway.
            self.fields["image"].help_text = (
                f"PNG or JPEG; described by {vision_model}." if vision_model else
                "PNG or JPEG. Needs a vision model, and none is configured: set one on the LLM settings page.")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not (data.get("description") or "").strip() and not data.get("image") and not self.errors:
            self.add_error("description", "The description is empty: describe the event or upload a stimulus image.")
        return data

    def option_data(self) -> dict[str, Any]:
        keys = ("schema_version", "max_validation_attempts", "run_assessment", "no_extend")
        return {k: self.cleaned_data[k] for k in keys}
