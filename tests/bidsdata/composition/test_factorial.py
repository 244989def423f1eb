"""Level codes that cross the factors of a design become conditions, one definition per token.

Every example is made up; each sidecar is checked with hedtools itself.
"""

from __future__ import annotations

from hed.models import Sidecar, TabularInput
from hed.schema import load_schema_version
from hed.tools.analysis.event_manager import EventManager
from hed.tools.analysis.hed_type_manager import HedTypeManager

from bidsdata.composition.factorial import design, role_position
from tests.bidsdata.composition.conftest import VERSION, composed_sidecar, task_of, verdicts

CODES = ["lo_fast", "lo_slow", "hi_fast", "hi_slow"]
EVENTS = "onset\tduration\tstim\n" + "".join(
    f"{n}.0\t0.5\t{code}\n" for n, code in enumerate([*CODES, "pause", *CODES], start=1))
SAME = "Sensory-event, Experimental-stimulus, Auditory-presentation, Tone"
ANNOTATIONS = {"stim": {code: SAME for code in [*CODES, "pause"]}}


def _composed(tmp_path, context: str = "Low or high tones played at a fast or slow pace"):
    task = task_of(EVENTS)
    task.context.task_name = context
    sidecar, composition = composed_sidecar(task, ANNOTATIONS, EVENTS)
    return sidecar, composition, verdicts(sidecar, EVENTS, tmp_path)


def test_codes_crossing_two_factors_are_recognised_and_fillers_and_name_lists_are_not():
    found = design([*CODES, "pause"])
    assert found is not None and found.separator == "_" and found.positions == (0, 1)
    assert set(found.tokens) == set(CODES)  # the filler code stays out of the design
    assert design(["lo-a-x", "lo-b-x", "hi-a-x", "hi-b-x"]).positions == (0, 1)  # a constant position is no factor
    assert design(["lo_fast", "hi_slow"]) is None  # too few codes
    assert design(["a_b", "c_d", "e_f", "g_h"]) is None  # 4 of 16 crossings: names, not a design
    assert design(["x_lo", "x_hi", "x_mid", "x_top"]) is None  # one varying position crosses nothing
    assert design(["left", "right", "up", "down"]) is None


def test_each_level_holds_the_def_of_each_of_its_tokens_and_levels_differ_by_meaning(tmp_path):
    sidecar, composition, (errors, checks, rows) = _composed(tmp_path)
    assert errors == [] and checks == [] and all(rows)
    hed = sidecar["stim"]["HED"]
    defs = {code: sorted(part for part in hed[code].replace("(", "").replace(")", "").split(", ")
                         if part.startswith("Def/")) for code in CODES}
    assert all(len(d) == 2 for d in defs.values())
    assert len({tuple(d) for d in defs.values()}) == 4  # four different sets of conditions
    assert not any("Label/" in hed[code] for code in CODES)  # told apart by meaning, not by a name
    assert [c for c, lv in composition.labelled if lv in CODES] == []
    # the tokens are read through the task's words: "lo" is the task's "low"
    assert any(d.endswith("-low") for d in defs["lo_fast"]) and any(d.endswith("-high") for d in defs["hi_slow"])
    entry = sidecar[composition.entry]["HED"]
    assert all("Condition-variable/Stim-" in text for text in entry.values())


def test_hedtools_recovers_one_condition_variable_per_position(tmp_path):
    _, composition, _ = _composed(tmp_path)
    schema = load_schema_version(VERSION)
    tab = TabularInput(str(tmp_path / "e.tsv"), sidecar=Sidecar(str(tmp_path / "s.json")))
    manager = HedTypeManager(EventManager(tab, schema))
    manager.add_type("Condition-variable")
    factors = manager.get_type("condition-variable").get_type_value_names()
    assert sorted(f.lower() for f in factors) == sorted(f.lower() for f in composition.factors)
    assert len(composition.factors) == 2


def test_tokens_the_context_cannot_read_still_name_their_place_in_the_design(tmp_path):
    sidecar, _, (errors, checks, _) = _composed(tmp_path, context="A listening task")
    assert errors == [] and checks == []
    hed = sidecar["stim"]["HED"]
    assert "-lo" in hed["lo_fast"] and "-hi" in hed["hi_fast"]
    assert hed["lo_fast"] != hed["hi_fast"]


ROLE_CODES = ["lo_cue", "lo_stim", "lo_resp", "hi_cue", "hi_stim", "hi_resp"]
ROLE_EVENTS = "onset\tduration\tstim\n" + "".join(
    f"{n}.0\t0.5\t{code}\n" for n, code in enumerate([*ROLE_CODES, *ROLE_CODES], start=1))


def _role_composed(tmp_path):
    task = task_of(ROLE_EVENTS)
    task.context.task_name = "Low or high tones: a cue, then a stimulus, then the participant's response"
    sidecar, composition = composed_sidecar(task, {"stim": {code: SAME for code in ROLE_CODES}}, ROLE_EVENTS)
    return sidecar, composition, verdicts(sidecar, ROLE_EVENTS, tmp_path)


def test_a_position_naming_the_events_roles_is_found_and_one_role_for_all_is_not():
    found = design(ROLE_CODES)
    position, read = role_position(found, None)
    assert position == 1 and sorted(read) == ["cue", "resp", "stim"]
    assert role_position(design(["a_lo", "a_hi", "b_lo", "b_hi"]), None) is None  # no role words
    # correct / incorrect both name feedback: they vary within one role, a condition
    assert role_position(design(["correct_lo", "incorrect_lo", "correct_hi", "incorrect_hi"]), None) is None


def test_the_role_position_gives_roles_and_the_other_position_still_gives_a_factor(tmp_path):
    sidecar, composition, (errors, checks, rows) = _role_composed(tmp_path)
    assert errors == [] and checks == [] and all(rows)
    hed = sidecar["stim"]["HED"]
    assert len(composition.factors) == 1  # the lo/hi position only
    for code in ROLE_CODES:
        assert hed[code].count("Def/") == 1 and "Label/" not in hed[code]
        assert hed[code].count("Sensory-event") + hed[code].count("Agent-action") == 1  # one event type
    assert "Cue" in hed["lo_cue"] and "Experimental-stimulus" not in hed["lo_cue"]
    assert "Experimental-stimulus" in hed["hi_stim"]
    assert "Agent-action" in hed["lo_resp"] and "Participant-response" in hed["lo_resp"]
    assert "Auditory-presentation" not in hed["lo_resp"]  # what only fits a sensed event leaves the action
    entry = " ".join(sidecar[composition.entry]["HED"].values())
    assert entry.count("Condition-variable/") == 2  # low and high; no condition for cue, stimulus or response
    assert not any(w in entry.lower() for w in ("-cue", "-stim", "-resp"))
    assert len({hed[code] for code in ROLE_CODES}) == len(ROLE_CODES)


def test_a_token_of_the_role_position_naming_no_role_keeps_its_condition(tmp_path):
    codes = [*ROLE_CODES, "lo_wait", "hi_wait"]
    events = "onset\tduration\tstim\n" + "".join(f"{n}.0\t0.5\t{code}\n" for n, code in enumerate(codes, start=1))
    task = task_of(events)
    task.context.task_name = "Low or high tones: a cue, then a stimulus, then the participant's response"
    sidecar, _ = composed_sidecar(task, {"stim": {code: SAME for code in codes}}, events)
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []
    hed = sidecar["stim"]["HED"]
    assert hed["lo_wait"].count("Def/") == 2 and hed["lo_stim"].count("Def/") == 1
    assert not any("Label/" in hed[code] for code in codes)  # apart from the stimulus levels by meaning
