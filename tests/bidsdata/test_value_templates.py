"""Value-column templates: general HED conventions, always valid with placeholders."""

from __future__ import annotations

import pytest

from bidsdata.schemas import validate_hed_string
from bidsdata.value_templates import propose_value_template, values_not_fitting


@pytest.mark.parametrize(("name", "units", "samples", "expected"), [
    ("stim_file", None, ["star_03.png"], "(Image, Pathname/#)"),
    ("sound_file", None, ["beep.wav"], "(Sound, Pathname/#)"),
    ("filename", None, ["notes.txt"], "Pathname/#"),
    ("response_time", None, [], "(Delay/# s, (Agent-action, Participant-response))"),
    ("rt", "ms", [], "(Delay/# ms, (Agent-action, Participant-response))"),
    ("trial", None, [], "Experimental-trial/#"),
    ("block", None, [], "Time-block/#"),
    ("tone_frequency", "Hz", [], "Frequency/# Hz"),
    ("contrast", None, [], "(Parameter-label/contrast, Parameter-value/#)"),
])
def test_templates_follow_general_rules_and_validate(name, units, samples, expected):
    template = propose_value_template(name, units=units, sample_values=samples, hed_version="8.4.0")
    assert template == expected
    assert template.count("#") == 1
    assert validate_hed_string(template, "8.4.0", allow_placeholders=True) == []


def test_odd_column_names_still_give_a_valid_template():
    template = propose_value_template("weird col (%)!", hed_version="8.2.0")
    assert validate_hed_string(template, "8.2.0", allow_placeholders=True) == []
    assert "#" in template


def test_sample_values_pick_a_template_the_data_fits():
    assert propose_value_template("tone_freq", units="Hz", sample_values=["500", "1000"]) == "Frequency/# Hz"
    # Words are no frequency in Hz: the labelled parameter value fits them.
    template = propose_value_template("tone_freq", units="Hz", sample_values=["high", "low"])
    assert template == "(Parameter-label/tone_freq, Parameter-value/#)"
    assert values_not_fitting(template, ["high", "low", "n/a"], "8.4.0") == []


def test_values_with_commas_fit_no_template_and_are_reported():
    values = ["BASE-START", "START-walk , Sub-No.-07"]
    template = propose_value_template("marker", sample_values=values)
    assert values_not_fitting(template, values, None) == ["START-walk , Sub-No.-07"]
