"""A task's levels composed into one sidecar: every row one proper event, factors and lasting things as
definitions, sibling levels told apart. Each sidecar is checked with hedtools itself."""

from __future__ import annotations

from tests.bidsdata.composition.conftest import VERSION, composed_sidecar, task_of, verdicts

EVENTS = (
    "onset\tduration\tevent_type\tcode\tcue\tload\n"
    "1.0\t0\tblock_start\t10\tn/a\tlow\n"
    "2.0\t0\tflash\t11\tarrow\tlow\n"
    "3.0\t0\tpress\t12\tn/a\tlow\n"
    "4.0\t0\tflash\t11\tarrow\tlow\n"
    "5.0\t0\tblock_end\t13\tn/a\tlow\n"
    "6.0\t0\tblock_start\t10\tn/a\thigh\n"
    "7.0\t0\tflash\t21\tchime\thigh\n"
    "7.5\t0\tpress\t22\tn/a\thigh\n"
    "8.0\t0\tflash\t21\tchime\thigh\n"
    "9.0\t0\tblock_end\t13\tn/a\thigh\n"
)
SIDECAR = {
    "event_type": {"Levels": {"block_start": "Start of a block of trials.", "block_end": "End of a block of trials.",
                              "flash": "A white square flashes.", "press": "The participant presses a button."}},
    "load": {"Description": "Memory load condition of the block.",
             "Levels": {"low": "Two items to remember.", "high": "Six items to remember."}},
}
# What levels annotated one by one look like: event types everywhere, bare codes, no structure.
ANNOTATIONS = {
    "event_type": {"block_start": "Experiment-structure, Time-block", "block_end": "Experiment-structure, Time-block",
                   "flash": "Sensory-event, (Square, White)", "press": "Agent-action, (Press, Push-button)"},
    "code": {"10": "Event", "11": "Event", "12": "Event", "13": "Event", "21": "Event", "22": "Event"},
    "cue": {"arrow": "(Sensory-event, Cue, Visual-presentation, Arrow)", "chime": "Sensory-event, Cue, Sound"},
    "load": {"low": "Sensory-event, (Item-count/2)", "high": "Sensory-event, (Item-count/6)"},
}


def _composed(tmp_path):
    task = task_of(EVENTS, SIDECAR)
    sidecar, composition = composed_sidecar(task, ANNOTATIONS, EVENTS)
    return sidecar, composition, verdicts(sidecar, EVENTS, tmp_path)


def test_every_row_is_a_proper_event_and_the_sidecar_validates(tmp_path):
    sidecar, composition, (errors, checks, rows) = _composed(tmp_path)
    assert composition.roles["event_type"] == "event"
    assert errors == []
    assert checks == []  # EventsChecker: one event type per event, role, modality, action
    assert all(rows)
    # the rows at one onset (7.0) are two events, each in its own group
    assert "Sensory-event" in sidecar["event_type"]["HED"]["flash"] and sidecar["event_type"]["HED"]["flash"][0] == "("


def test_modifier_columns_lose_their_own_event_types_and_are_nested(tmp_path):
    sidecar, composition, _ = _composed(tmp_path)
    assert composition.roles["cue"] == "modifier"
    assert all("Sensory-event" not in hed for hed in sidecar["cue"]["HED"].values())
    assert "{cue}" in sidecar["event_type"]["HED"]["flash"]


def test_start_and_end_levels_become_onset_and_offset_of_one_definition(tmp_path):
    sidecar, composition, (errors, _, _) = _composed(tmp_path)
    start, end = sidecar["event_type"]["HED"]["block_start"], sidecar["event_type"]["HED"]["block_end"]
    assert start.endswith("Onset)") and end.endswith("Offset)")
    assert start.split(",")[0] == end.split(",")[0]  # the same Def
    name = start.split(",")[0].removeprefix("(Def/")
    assert any(f"Definition/{name}" in text for text in composition.definitions["HED"].values())
    assert errors == []


def test_a_factor_column_becomes_condition_variable_definitions_hedtools_recovers(tmp_path):
    from hed.models import Sidecar, TabularInput
    from hed.schema import load_schema_version
    from hed.tools.analysis.event_manager import EventManager
    from hed.tools.analysis.hed_type_manager import HedTypeManager

    sidecar, composition, _ = _composed(tmp_path)
    assert composition.roles["load"] == "condition" and composition.factors == ["Load"]
    assert sidecar["load"]["HED"] == {"low": "Def/Low", "high": "Def/High"}
    schema = load_schema_version(VERSION)
    tab = TabularInput(str(tmp_path / "e.tsv"), sidecar=Sidecar(str(tmp_path / "s.json")))
    manager = HedTypeManager(EventManager(tab, schema))
    manager.add_type("Condition-variable")
    factors = manager.get_type("condition-variable").get_type_value_names()
    assert [f.lower() for f in factors] == ["load"]


def test_a_condition_two_events_at_one_onset_share_is_nested_into_each_event(tmp_path):
    events = EVENTS.replace("7.5\t0\tpress", "7.0\t0\tpress")  # flash and press at one onset, both "high"
    task = task_of(events, SIDECAR)
    sidecar, _ = composed_sidecar(task, ANNOTATIONS, events)
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert "{load}" in sidecar["event_type"]["HED"]["flash"]  # at top level its Def would repeat in one event
    assert sidecar["load"]["HED"] == {"low": "Def/Low", "high": "Def/High"}
    assert errors == [] and checks == []


def test_codes_the_word_columns_decide_get_no_hed_of_their_own(tmp_path):
    sidecar, composition, (errors, _, _) = _composed(tmp_path)
    assert "HED" not in sidecar["code"] and errors == []
    assert {n.level for n in composition.notes if n.column == "code" and n.redundant} == set(ANNOTATIONS["code"])


def test_codes_that_say_the_same_are_told_apart_by_the_conditions_their_rows_are_in(tmp_path):
    # Code 23 shares its row's words with code 21: the words no longer decide the code, so it is annotated.
    events = EVENTS + "9.5\t0\tflash\t23\tchime\thigh\n"
    annotations = {**ANNOTATIONS, "code": {**ANNOTATIONS["code"], "23": "Event"}}
    sidecar, _ = composed_sidecar(task_of(events, SIDECAR), annotations, events)
    errors, _, _ = verdicts(sidecar, events, tmp_path)
    codes = sidecar["code"]["HED"]
    assert codes["11"] != codes["21"]
    assert "Def/Low" in codes["11"] and "Def/High" in codes["21"]  # every row of 11 is a low-load row
    assert len(set(codes.values())) == len(codes)
    assert errors == []


def test_an_event_level_gets_the_role_modality_and_action_it_lacked(tmp_path):
    sidecar, _, _ = _composed(tmp_path)
    assert "Experimental-stimulus" in sidecar["event_type"]["HED"]["flash"]
    assert "Visual-presentation" in sidecar["event_type"]["HED"]["flash"]
    assert "Participant-response" in sidecar["event_type"]["HED"]["press"]


def test_a_column_hedtools_cannot_reference_stays_at_top_level_beside_one_event(tmp_path):
    """`{parametric gain}` is no reference for hedtools; its group then stands beside the event, so a level
    that tells of two events becomes one (with several events, hedtools asks every group for an event type)."""
    events = "onset\tduration\ttrial_type\tparametric gain\n1.0\t3\tgamble\t0.5\n5.0\t3\tgamble\t-0.2\n"
    sidecar = {"trial_type": {"Levels": {"gamble": "A gamble is shown and the participant presses a button."}}}
    annotations = {"trial_type": {"gamble": "(Sensory-event, Visual-presentation, Experimental-stimulus), "
                                            "(Agent-action, Participant-response, Press)"},
                   "parametric gain": "(Parameter-label/parametric-gain, Parameter-value/#)"}
    task = task_of(events, sidecar)
    composed, _composition = composed_sidecar(task, annotations, events)
    errors, checks, rows = verdicts(composed, events, tmp_path)
    assert "{parametric gain}" not in composed["trial_type"]["HED"]["gamble"]
    assert composed["trial_type"]["HED"]["gamble"].count("Agent-action") == 0  # one event, the press inside it
    assert errors == [] and checks == [] and all("Parameter-value" in r for r in rows)


def test_content_three_events_share_becomes_a_definition(tmp_path):
    events = "onset\tduration\tstim\n1.0\t1\tface\n2.0\t1\thouse\n3.0\t1\tcar\n"
    sidecar = {"stim": {"Levels": {"face": "A face on the screen.", "house": "A house on the screen.",
                                   "car": "A car on the screen."}}}
    screen = "(Visual-presentation, Computer-screen)"
    annotations = {"stim": {"face": f"Sensory-event, Experimental-stimulus, {screen}, Face",
                            "house": f"Sensory-event, Experimental-stimulus, {screen}, Building",
                            "car": f"Sensory-event, Experimental-stimulus, {screen}, Car"}}
    composed, composition = composed_sidecar(task_of(events, sidecar), annotations, events)
    name = next(n for n, text in composition.definitions["HED"].items() if "Computer-screen" in text)
    assert all(f"Def/{name}".lower() in hed.lower() and screen not in hed for hed in composed["stim"]["HED"].values())
    errors, checks, _ = verdicts(composed, events, tmp_path)
    assert errors == [] and checks == []  # the modality inside the definition still counts for the event check


def test_a_modifier_level_that_only_repeats_its_event_gets_no_hed_of_its_own_and_a_question(tmp_path):
    events = "onset\tduration\tevent_type\ttrial_part\n1.0\t0\tflash\trare\n2.0\t0\tflash\tn/a\n"
    annotations = {"event_type": {"flash": "Sensory-event, Experimental-stimulus, Visual-presentation, Square"},
                   "trial_part": {"rare": "(Sensory-event, Visual-presentation)"}}
    task = task_of(events)
    composed, composition = composed_sidecar(task, annotations, events)
    # A Label would be a name, not a meaning: the column is left without HED, and the lab is asked.
    assert "HED" not in composed.get("trial_part", {})
    assert ("trial_part", "rare") not in composition.labelled
    assert any((n.column, n.level) == ("trial_part", "rare") and "describe what sets it apart" in n.reason
               for n in composition.notes)
    errors, checks, _ = verdicts(composed, events, tmp_path)
    assert errors == [] and checks == []
