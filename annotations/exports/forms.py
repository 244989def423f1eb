"""The export page's form."""

from __future__ import annotations

from django import forms

from annotations.exports.formats import FORMATS


class ExportForm(forms.Form):
    """The format only: the history filters beside it are checked by filters.filter_sessions."""

    format = forms.ChoiceField(label="Format", choices=[(f.name, f.label) for f in FORMATS.values()],
                               initial="csv", widget=forms.RadioSelect)
