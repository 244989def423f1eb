"""Parametric levels (bidsdata/composition/parametric.py): one thing at several values is the thing and its
value, never a Label alone (issue 36 item 5). Made-up data."""

from __future__ import annotations

from bidsdata.composition.parametric import parametric, stem_name
from tests.bidsdata.composition.conftest import composed_sidecar, task_of, verdicts


def test_levels_of_one_stem_and_different_numbers_are_parametric() -> None:
    assert parametric(["TILT-10", "tilt_20", "Tilt 30"]) == {
        "TILT-10": ("TILT", "10"), "tilt_20": ("tilt", "20"), "Tilt 30": ("Tilt", "30")}
    assert parametric(["speed1", "speed2.5"]) == {"speed1": ("speed", "1"), "speed2.5": ("speed", "2.5")}
    assert parametric(["TILT-10", "GLOW-20"]) == {}  # two stems
    assert parametric(["TILT-10", "TILT-10 "]) == {}  # one number twice
    assert parametric(["TILT-10"]) == {}
    assert parametric(["left", "right"]) == {}
    assert stem_name("working memory") == "Working-memory"


def _events(column: str, values: list[str]) -> str:
    rows = [f"{i + 1}.0\t0\tglow\t{values[(i // 8) % len(values)]}\n" for i in range(8 * len(values))]
    return f"onset\tduration\tkind\t{column}\n" + "".join(rows)


def test_a_parametric_condition_is_the_stem_as_factor_with_each_value(tmp_path) -> None:
    events = _events("block", ["TILT-10", "TILT-20", "TILT-30"])
    task = task_of(events, {"block": {"Description": "The condition of the block."}})
    annotations = {"kind": {"glow": "Sensory-event, Experimental-stimulus, Visual-presentation, Circle"},
                   "block": {v: "Event" for v in ("TILT-10", "TILT-20", "TILT-30")}}
    sidecar, composition = composed_sidecar(task, annotations, events)
    assert composition.roles["block"] == "condition" and composition.factors == ["Tilt"]
    defined = " ".join(composition.definitions["HED"].values())
    for value in ("10", "20", "30"):
        assert f"Parameter-value/{value}" in defined
    assert "Label/" not in str(sidecar)
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []


def test_parametric_levels_of_an_event_are_told_apart_by_their_values(tmp_path) -> None:
    events = "onset\tduration\tkind\n" + "".join(f"{i}.0\t0\tspeed_{1 + i % 3}\n" for i in range(1, 10))
    task = task_of(events)
    same = "Sensory-event, Experimental-stimulus, Visual-presentation, Circle"
    sidecar, _ = composed_sidecar(task, {"kind": {f"speed_{n}": same for n in (1, 2, 3)}}, events)
    hed = sidecar["kind"]["HED"]
    assert len(set(hed.values())) == 3 and "Label/" not in str(hed)
    assert all(f"Parameter-value/{n}" in hed[f"speed_{n}"] for n in (1, 2, 3))
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []
