"""Rows whose duration covers other events get HED's Duration from the duration column; jitter does not.

Every events file here is made up; each sidecar is checked with hedtools itself.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidsdata.composition.spans import covering_levels, spanned
from bidsdata.composition.tags import names
from tests.bidsdata.composition.conftest import VERSION, composed_sidecar, task_of, verdicts

BLOCKS = ("onset\tduration\tkind\n"
          "0.0\t10.0\tblock\n"
          "1.0\t0.5\tflash\n"
          "4.0\t0.5\tflash\n"
          "11.0\t0.5\tflash\n"
          "12.0\t10.0\tblock\n"
          "13.0\t0.5\tflash\n"
          "16.0\tn/a\tflash\n")
ANNOTATIONS = {"kind": {"block": "(Experiment-structure, Time-block)",
                        "flash": "(Sensory-event, Experimental-stimulus, Visual-presentation, (White, Square))"}}


def _rows(text: str) -> list[dict[str, str]]:
    header, *lines = text.strip("\n").split("\n")
    return [dict(zip(header.split("\t"), line.split("\t"), strict=True)) for line in lines]


def test_a_level_whose_rows_last_over_other_events_is_headed_by_its_duration(tmp_path):
    sidecar, _ = composed_sidecar(task_of(BLOCKS), ANNOTATIONS, BLOCKS)
    assert sidecar["kind"]["HED"]["block"] == "({duration}, (Experiment-structure, Time-block))"
    assert sidecar["duration"]["HED"] == "Duration/# s"
    assert "{duration}" not in sidecar["kind"]["HED"]["flash"]  # a flash covers nothing
    errors, checks, rows = verdicts(sidecar, BLOCKS, tmp_path)
    assert errors == [] and checks == []
    assert rows[0] == "(Duration/10.0 s, (Experiment-structure, Time-block))"
    assert "Duration" not in rows[1]


def test_hedtools_follows_the_span_over_the_events_inside_it(tmp_path):
    from hed.models import Sidecar, TabularInput
    from hed.schema import load_schema_version
    from hed.tools.analysis.event_manager import EventManager

    sidecar, _ = composed_sidecar(task_of(BLOCKS), ANNOTATIONS, BLOCKS)
    verdicts(sidecar, BLOCKS, tmp_path)  # writes s.json and e.tsv
    manager = EventManager(TabularInput(str(tmp_path / "e.tsv"), sidecar=Sidecar(str(tmp_path / "s.json"))),
                           load_schema_version(VERSION))
    lasting = [e for row in manager.event_list for e in row if e.end_time is not None]  # temporal events
    assert [(e.start_time, e.end_time) for e in lasting] == [(0.0, 10.0), (12.0, 22.0)]
    # the flash at 1 s happens while the first block lasts, the one at 11 s between blocks
    _, _, contexts = manager.unfold_context()
    assert "Time-block" in str(contexts[1]) and "Time-block" not in str(contexts[3])


def test_jitter_at_the_end_of_a_span_is_no_event_inside_it():
    events = ("onset\tduration\tkind\n"
              "0.000\t2.000\tcue\n"
              "1.997\t4.000\tpicture\n"
              "6.000\t2.000\tcue\n"
              "7.996\t4.000\tpicture\n")
    assert covering_levels([_rows(events)], "kind") == set()


def test_a_level_already_timed_or_holding_two_events_is_left_as_it_is():
    known = names(VERSION)
    assert spanned("(Def/Block, Onset)", known) is None
    assert spanned("(Sensory-event, Tone), (Agent-action, Participant-response, Press)", known) is None
    assert spanned("Label/x", known) is None  # no event to give a duration to
    assert spanned("Sensory-event, Tone", known) == "({duration}, (Sensory-event, Tone))"


_durations = st.one_of(st.floats(min_value=-5, max_value=50, allow_nan=False).map(lambda f: f"{f:.3f}"),
                       st.sampled_from(["n/a", "", "NaN", "inf", "x", " 2", "0"]))
LEVELS = {"a": "(Experiment-structure, Time-block)",
          "b": "(Sensory-event, Experimental-stimulus, Auditory-presentation, Tone)"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.floats(min_value=0, max_value=60, allow_nan=False), _durations,
                          st.sampled_from(["a", "b", "n/a"])), min_size=1, max_size=12))
def test_any_durations_give_a_valid_sidecar_whose_rows_pass_the_event_checks(tmp_path, rows):
    rows = sorted(rows)  # onsets in order, as BIDS asks (shapes with unordered onsets are tested elsewhere)
    events = "onset\tduration\tkind\n" + "".join(f"{o:.3f}\t{d}\t{k}\n" for o, d, k in rows)
    annotations = {"kind": {k: v for k, v in LEVELS.items() if any(k == r[2] for r in rows)}}
    if not annotations["kind"]:
        return
    sidecar, _ = composed_sidecar(task_of(events), annotations, events)
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []
