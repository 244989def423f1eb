"""Forms of the review panel; the rules live in annotations.review.services and annotations.corrections."""

from __future__ import annotations

from typing import Any

from django import forms

from annotations.corrections import MAX_ANNOTATION_CHARS, MAX_COMMENT_CHARS
from annotations.datasets.placement import MAX_LEVEL_CHOICES, level_choices_for
from annotations.models import Verdict

RATING_CHOICES = [(n, str(n)) for n in range(1, 6)]


class _PanelForm(forms.Form):
    """The panel shows several forms on one page: each gets its own id prefix."""

    id_prefix = "review"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", f"{self.id_prefix}-%s")
        super().__init__(*args, **kwargs)


class ReviewForm(_PanelForm):
    rating = forms.TypedChoiceField(label="Rating", choices=RATING_CHOICES, coerce=int,
                                    widget=forms.RadioSelect(attrs={"class": "rating-input"}))
    verdict = forms.ChoiceField(label="Verdict", choices=Verdict.choices, widget=forms.RadioSelect)
    comment = forms.CharField(label="Comment", required=False, max_length=MAX_COMMENT_CHARS,
                              widget=forms.Textarea(attrs={"rows": 2, "placeholder": "What is right or wrong?"}))


class CorrectionForm(_PanelForm):
    id_prefix = "correction"
    hed = forms.CharField(label="Corrected annotation", max_length=MAX_ANNOTATION_CHARS,
                          widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false", "autocomplete": "off"}))
    comment = forms.CharField(label="Why (optional)", required=False, max_length=MAX_COMMENT_CHARS)


class DatasetLevelForm(_PanelForm):
    """Add a run to a dataset project as one level's annotation; the choices are the levels of the user's own
    projects, grouped by project, task and column (:mod:`annotations.datasets.placement`)."""

    id_prefix = "place"  # the panel's "dataset-level" id is the paragraph saying which level the run annotates
    level = forms.TypedChoiceField(label="Dataset level", coerce=int)

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        found = level_choices_for(user)
        self.fields["level"].choices = [("", "Choose a level"), *found.groups]
        if found.truncated:
            self.fields["level"].help_text = (f"The first {MAX_LEVEL_CHOICES} levels of your newest projects; place "
                                              "the run in another from its project's page or the API.")

    @property
    def has_choices(self) -> bool:
        return len(self.fields["level"].choices) > 1
