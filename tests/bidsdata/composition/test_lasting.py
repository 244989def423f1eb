"""Things that last (bidsdata/composition/lasting.py): start and end levels paired by meaning, the definition's
content from the level or from the lab's legend of named things. Made-up descriptions only."""

from __future__ import annotations

import re

from agents.conventions import words
from bidsdata.composition import reading
from bidsdata.composition.lasting import legend_entry, pairs, sides
from bidsdata.pipeline import sidecar_for_task
from tests.bidsdata.composition.conftest import VERSION, task_of, verdicts


def described(**levels: str) -> dict[str, list[str]]:
    return {code: words(text) for code, text in levels.items()}


def test_a_start_and_an_end_worded_differently_are_one_thing() -> None:
    found = pairs(described(a="The pilot starts adjusting the rudder angle.",
                            b="The pilot has completed the rudder angle adjustment.",
                            c="A bell rings."))
    assert [(p.start, p.end) for p in found] == [("a", "b")]


def test_a_misspelt_end_word_still_ends_what_the_other_level_starts() -> None:
    levels = described(s="The pump motor starts humming.", e="The pump motor ennds humming.")
    assert sides(levels) == {"s": "start", "e": "end"}
    assert [(p.start, p.end) for p in pairs(levels)] == [("s", "e")]


def test_numbers_keep_two_things_apart_and_ambiguous_ends_stay_unpaired() -> None:
    found = pairs(described(a="Start showing the 20 km sign.", b="End showing the 20 km sign.",
                            c="Start showing the 60 km sign.", d="End showing the 60 km sign."))
    assert sorted((p.start, p.end) for p in found) == [("a", "b"), ("c", "d")]
    # Two ends as close to one start as each other: which ends which is the lab's to say.
    assert pairs(described(a="Start of the hum.", b="End of the hum.", c="End of the hum!")) == []


def test_a_legend_entry_is_named_by_its_words_not_by_the_doer() -> None:
    legend = {"hull_breach": "Water enters the hull.", "pump_operator": "The person who runs the pump.",
              "pump_run": "The pump moves water out."}
    assert legend_entry(("hull", "breaching"), legend) == "hull_breach"
    assert legend_entry(("pumping",), legend) is None  # two entries named alike: not clear
    assert legend_entry(("builder", "arrives"), {"build": "A tower is put up."}) is None  # the doer is not the deed


EVENTS = ("onset\tduration\tcode\n"
          "1.0\tn/a\t11\n2.0\tn/a\t12\n3.0\tn/a\t31\n4.0\tn/a\t11\n5.0\tn/a\t12\n6.0\tn/a\t31\n")
SIDECAR = {
    "code": {"Levels": {"11": "Start of the wobble.", "12": "End of the wobble.", "31": "A bell rings."}},
    "named_things": {"Levels": {"wobble": "A platform shakes the chair from side to side."}},
}


def test_a_pair_the_level_words_say_nothing_of_takes_its_content_from_the_legend(tmp_path) -> None:
    task = task_of(EVENTS, SIDECAR)
    assert task.legend() == {"wobble": "A platform shakes the chair from side to side."}
    annotations = {"code": {"11": "Event", "12": "Event", "31": "Sensory-event, Auditory-presentation, Buzz"}}
    result = sidecar_for_task(task, annotations, {"sub-01_events.tsv": EVENTS}, VERSION)
    hed = result.sidecar["code"]["HED"]
    assert hed["11"] == "(Def/Wobble, Onset)" and hed["12"] == "(Def/Wobble, Offset)"
    definition = next(iter(result.composition.definitions["HED"].values()))
    legend = reading.read(SIDECAR["named_things"]["Levels"]["wobble"], VERSION)
    assert legend and all(tag in definition for tag in re.findall(r"[\w-]+", legend))  # the legend, read
    errors, checks, _ = verdicts(result.sidecar, EVENTS, tmp_path)
    assert not errors and not checks


def test_an_end_at_its_own_start_time_leaves_that_thing_untimed_and_the_rest_composed(tmp_path) -> None:
    events = ("onset\tduration\tcode\n"
              "1.0\tn/a\t11\n2.0\tn/a\t12\n3.0\tn/a\t21\n4.0\tn/a\t22\n"
              "5.0\tn/a\t21\n5.0\tn/a\t22\n")  # one thing started and ended at one onset: a glitch of the data
    sidecar = {"code": {"Levels": {"11": "Start of the wobble.", "12": "End of the wobble.",
                                   "21": "Start of the hum.", "22": "End of the hum."}}}
    task = task_of(events, sidecar)
    moving = "Sensory-event, Visual-presentation, (Square, Move)"
    annotations = {"code": {"11": moving, "12": moving,
                            "21": "Sensory-event, Auditory-presentation, Sound",
                            "22": "Sensory-event, Auditory-presentation, Sound"}}
    result = sidecar_for_task(task, annotations, {"sub-01_events.tsv": events}, VERSION)
    hed = result.sidecar["code"]["HED"]
    assert hed["11"].endswith("Onset)") and hed["12"].endswith("Offset)")  # the wobble stays lasting
    assert hed["21"].startswith("Def/") and "22" not in hed  # the hum is said at its start, its end noted
    assert any(m.level == "22" and "end" in m.reason for m in result.dropped)
    assert not [i for i in result.issues if i.severity == "error"]
    errors, _, _ = verdicts(result.sidecar, events, tmp_path)
    assert not errors


def _long_session(glitch: str) -> str:
    """Two hundred wobbles started and ended in turn, then *glitch* rows at one onset."""
    rows = "".join(f"{2 * i}.0\tn/a\t11\n{2 * i + 1}.0\tn/a\t12\n" for i in range(100))
    return "onset\tduration\tcode\n" + rows + glitch


def test_a_start_and_its_end_dumped_at_one_instant_once_in_hundreds_keep_the_span(tmp_path) -> None:
    events = _long_session("500.0\tn/a\t11\n500.0\tn/a\t12\n")  # the recording's glitch, once
    sidecar = {"code": {"Levels": {"11": "Start of the wobble.", "12": "End of the wobble."}}}
    moving = "Sensory-event, Visual-presentation, (Square, Move)"
    result = sidecar_for_task(task_of(events, sidecar), {"code": {"11": moving, "12": moving}},
                              {"sub-01_events.tsv": events}, VERSION)
    hed = result.sidecar["code"]["HED"]
    assert hed["11"].endswith("Onset)") and hed["12"].endswith("Offset)")  # every other wobble keeps its span
    refused = {i.row for i in result.issues if i.severity == "error"}
    assert refused and refused <= {202, 203}  # validation still names the glitch's rows, and only them


def test_a_row_written_twice_keeps_its_level_and_only_that_event_is_refused(tmp_path) -> None:
    events = _long_session("500.0\tn/a\t31\n500.0\tn/a\t31\n") + "".join(f"{600 + i}.0\tn/a\t31\n" for i in range(5))
    sidecar = {"code": {"Levels": {"11": "Start of the wobble.", "12": "End of the wobble.",
                                   "31": "A beep sounds."}}}
    moving = "Sensory-event, Visual-presentation, (Square, Move)"
    annotations = {"code": {"11": moving, "12": moving, "31": "Sensory-event, Auditory-presentation, Beep"}}
    result = sidecar_for_task(task_of(events, sidecar), annotations, {"sub-01_events.tsv": events}, VERSION)
    assert "Beep" in result.sidecar["code"]["HED"]["31"]  # the level keeps its meaning on its real events
    assert not any(note.level == "31" for note in result.dropped)
    refused = {i.row for i in result.issues if i.severity == "error"}
    assert refused and refused <= {202, 203}  # the repeated event is named, and nothing else
    _, _, rows = verdicts(result.sidecar, events, tmp_path)
    assert all("Beep" in row for row in rows[-5:])
