"""Our Delay split gives hedtools' own frames (so the same issues), without its row-by-row growth."""

from __future__ import annotations

import random

import pandas as pd
import pytest
from hed.errors.exceptions import HedFileError

from bidsdata import delays
from bidsdata.schemas import load_schema
from bidsdata.sidecar import validate_sidecar


def _events(n: int, seed: int) -> tuple[pd.Series, pd.Series]:
    rng = random.Random(seed)
    hed, onsets = [], []
    for i in range(n):
        roll = rng.random()
        if roll < 0.3:
            text = f"Sensory-event, (Delay/{rng.choice(['0.2', '1.5 s', '300 ms'])}, (Agent-action, Press))"
        elif roll < 0.4:
            text = "(Delay/0.5 s, Red), (Delay/2, Blue), Sensory-event"
        elif roll < 0.5:
            text = "n/a"
        else:
            text = "Sensory-event, Red"
        hed.append(text)
        onsets.append(round(i * rng.uniform(0.1, 0.9), 3))
    return pd.Series(hed), pd.Series(onsets)


@pytest.mark.parametrize(("rows", "seed"), [(1, 1), (12, 2), (300, 3), (300, 4)])
def test_the_split_equals_hedtools_own(rows, seed):
    schema = load_schema("8.3.0")
    series, onsets = _events(rows, seed)
    expected = delays.original()(series.copy(), schema, onsets.copy())
    found = delays.split_delay_tags(series.copy(), schema, onsets.copy())
    pd.testing.assert_frame_equal(found, expected)


def test_no_series_or_no_onsets_is_none():
    schema = load_schema("8.3.0")
    assert delays.split_delay_tags(None, schema, pd.Series([1.0])) is None
    assert delays.split_delay_tags(pd.Series(["Red"]), schema, None) is None


def test_a_delay_that_cannot_be_converted_is_refused_as_hedtools_refuses_it():
    schema = load_schema("8.3.0")
    series, onsets = pd.Series(["(Delay/soon, Red)"]), pd.Series([1.0])
    with pytest.raises(HedFileError) as ours:
        delays.split_delay_tags(series, schema, onsets)
    with pytest.raises(HedFileError) as theirs:
        delays.original()(series, schema, onsets)
    assert str(ours.value) == str(theirs.value)


def test_validating_events_with_delays_reports_what_hedtools_reports(monkeypatch):
    sidecar = {"response_time": {"HED": "(Delay/# s, (Agent-action, Participant-response, (Press, Mouse-button)))"},
               "event_type": {"HED": {"show": "Sensory-event, Visual-presentation, (Red, Circle)",
                                      "press": "Agent-action, Participant-response, (Press, Red)"}}}
    rows = "".join(f"{i}.0\t{'show' if i % 2 else 'press'}\t{'n/a' if i % 3 else '0.43'}\n" for i in range(60))
    events = {"sub-01_task-a_events.tsv": "onset\tevent_type\tresponse_time\n" + rows}
    ours = validate_sidecar(sidecar, events, "8.3.0", include_warnings=True)
    monkeypatch.setattr(delays, "install", lambda: None)
    monkeypatch.setattr(delays.df_util, "split_delay_tags", delays.original())
    theirs = validate_sidecar(sidecar, events, "8.3.0", include_warnings=True)
    assert ours == theirs


@pytest.mark.parametrize("onsets", [
    [1.0, 1.0, 2.0, 2.0000000001, 3.0],  # shared onsets, one within hedtools' tolerance
    [1.0, float("nan"), 1.0, 2.0, float("nan")],  # rows without an onset between rows of one onset
    [2.0, 1.0, 2.0, 1.0],  # one onset twice, not in a row (hedtools joins them all)
])
def test_the_rows_at_one_onset_are_joined_as_hedtools_joins_them(onsets):
    frame = pd.DataFrame({"onset": onsets, "HED": [f"Item-{i}" if i != 2 else "" for i in range(len(onsets))],
                          "original_index": range(len(onsets))})
    expected = delays.df_util.filter_series_by_onset(frame.copy(), frame.onset)
    pd.testing.assert_frame_equal(delays.filter_by_onset(frame.copy()), expected)
