"""The floor kept where it fails, and only there (bidsdata/composition/valid.py): one bad key, one bad level or
one clashing name never costs the task its composition (issue 35 item 3)."""

from __future__ import annotations

from bidsdata.pipeline import sidecar_for_task
from tests.bidsdata.composition.conftest import VERSION, task_of, verdicts

EVENTS = "onset\tduration\tkind\tfocus\n" + "".join(
    f"{i}.0\t0\t{'glow' if i % 2 else 'tap'}\t{'attend' if i <= 10 else 'ignore'}\n" for i in range(1, 21))
LEVELS = {"kind": {"Levels": {"glow": "A green circle shows.", "tap": "The participant taps a key."}}}
ANNOTATIONS = {"kind": {"glow": "Sensory-event, (Circle, Green)", "tap": "Agent-action, (Press, Keyboard-key)"}}
QUALITY = {"max_files": 5, "max_rows": 100}


def run(sidecar: dict, annotations: dict = ANNOTATIONS):
    task = task_of(EVENTS, sidecar)
    return sidecar_for_task(task, annotations, {"sub-01_events.tsv": EVENTS}, VERSION, quality_limits=QUALITY)


def test_a_key_that_is_no_column_with_bad_hed_is_left_out_and_the_rest_stays_composed(tmp_path) -> None:
    result = run({**LEVELS, "junk": {"HED": {"a": "Blorb, (Circle"}}})
    assert not result.composition.fallback
    assert "HED" not in result.sidecar["junk"]
    assert any(note.column == "junk" for note in result.dropped)  # reported, not silent
    assert result.checked["figures"]["rows_ok"] == 20  # every row still a proper event
    errors, checks, _ = verdicts(result.sidecar, EVENTS, tmp_path)
    assert not errors and not checks


def test_a_placeholder_definition_of_the_lab_never_clashes_with_a_composed_one(tmp_path) -> None:
    lab = {"defs": {"HED": {"x": "(Definition/Attend/#, (Attend-to, Label/#))"}}}
    annotations = {**ANNOTATIONS, "focus": {"attend": "Attend-to", "ignore": "(Not-equal-to, Attend-to)"}}
    sidecar = {**LEVELS, **lab, "focus": {"Description": "The condition: attend or ignore.",
                                           "Levels": {"attend": "Attend to it.", "ignore": "Ignore it."}}}
    result = run(sidecar, annotations)
    assert not result.composition.fallback
    composed = result.composition.definitions["HED"]
    assert not any(text.startswith("(Definition/Attend,") for text in composed.values())
    assert result.checked["figures"]["rows_ok"] == 20
    errors, _, _ = verdicts(result.sidecar, EVENTS, tmp_path)
    assert not errors


def test_one_level_hedtools_refuses_goes_back_alone_not_its_whole_column() -> None:
    annotations = {"kind": {"glow": "Sensory-event, (Circle, Green)", "tap": "Agent-action, Blorb"}}
    result = run(LEVELS, annotations)
    hed = result.sidecar["kind"]["HED"]
    assert hed["glow"].startswith("(Sensory-event") and "Experimental-stimulus" in hed["glow"]  # still composed
    assert "tap" not in hed and any(m.level == "tap" for m in result.missing)  # the bad one asked about
