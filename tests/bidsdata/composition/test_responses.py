"""Columns that tell of the response go into the response time's delayed action, where every row allows it.

Every events file here is made up; each sidecar is checked with hedtools itself.
"""

from __future__ import annotations

from tests.bidsdata.composition.conftest import composed_sidecar, task_of, verdicts

EVENTS = ("onset\tduration\tkind\tkey\taccuracy\trt\n"
          "1.0\t0.5\tflash\tleft\tright_answer\t0.52\n"
          "4.0\t0.5\tbeep\tright\twrong_answer\t0.61\n"
          "7.0\t0.5\tflash\tright\tright_answer\t0.48\n"
          "10.0\t0.5\tbeep\tleft\tright_answer\t0.55\n")
ANNOTATIONS = {
    "kind": {"flash": "(Sensory-event, Experimental-stimulus, Visual-presentation, Square)",
             "beep": "(Sensory-event, Experimental-stimulus, Auditory-presentation, Beep)"},
    "key": {"left": "(Agent-action, Participant-response, (Press, (Left-side-of, Keyboard-key)))",
            "right": "(Agent-action, Participant-response, (Press, (Right-side-of, Keyboard-key)))"},
    "accuracy": {"right_answer": "Agent-action, Participant-response, Press, Correct-action",
                 "wrong_answer": "Agent-action, Participant-response, Press, Incorrect-action"},
    "rt": "(Delay/# s, (Agent-action, Participant-response, Press))",
}


def test_key_and_accuracy_columns_become_part_of_the_one_delayed_response(tmp_path):
    sidecar, _ = composed_sidecar(task_of(EVENTS), ANNOTATIONS, EVENTS)
    assert sidecar["rt"]["HED"] == "(Delay/# s, (Agent-action, Participant-response, Press, {key}, {accuracy}))"
    assert sidecar["key"]["HED"] == {"left": "(Press, (Left-side-of, Keyboard-key))",
                                     "right": "(Press, (Right-side-of, Keyboard-key))"}
    assert sidecar["accuracy"]["HED"] == {"right_answer": "Correct-action", "wrong_answer": "Incorrect-action"}
    errors, checks, rows = verdicts(sidecar, EVENTS, tmp_path)
    assert errors == [] and checks == []
    # one action per row, and it is the delayed one: the press no longer happens at the stimulus onset
    assert rows[0].count("Agent-action") == 1 and "(Delay/0.52 s, (Agent-action" in rows[0]
    assert "Left-side-of" in rows[0] and "Correct-action" in rows[0]


def test_a_column_with_rows_that_have_no_response_time_stays_where_it_was(tmp_path):
    events = EVENTS + "13.0\t0.5\tflash\tleft\tright_answer\tn/a\n"
    sidecar, _ = composed_sidecar(task_of(events), ANNOTATIONS, events)
    assert "{key}" not in sidecar["rt"]["HED"] and "Left-side-of" in sidecar["key"]["HED"]["left"]
    errors, _, _ = verdicts(sidecar, events, tmp_path)
    assert errors == []


def test_a_column_that_presents_something_is_no_part_of_the_response(tmp_path):
    annotations = {**ANNOTATIONS, "key": {"left": "(Sensory-event, Cue, Visual-presentation, Arrow)",
                                          "right": "(Sensory-event, Cue, Visual-presentation, Circle)"}}
    sidecar, _ = composed_sidecar(task_of(EVENTS), annotations, EVENTS)
    assert "{key}" not in sidecar["rt"]["HED"] and "{accuracy}" in sidecar["rt"]["HED"]
    errors, checks, _ = verdicts(sidecar, EVENTS, tmp_path)
    assert errors == [] and checks == []


def test_a_moved_column_left_with_nothing_to_say_leaves_no_reference_behind(tmp_path):
    # both keys only repeat the response (nothing tells them apart): they lose their HED, and the response
    # time must not refer to a column the sidecar no longer annotates (hedtools would refuse the sidecar)
    events = EVENTS.replace("\tleft\t", "\tq7\t").replace("\tright\t", "\tz9\t")
    annotations = {**ANNOTATIONS, "key": {"q7": "(Agent-action, Participant-response, Press)",
                                          "z9": "(Agent-action, Participant-response, Press)"}}
    sidecar, composition = composed_sidecar(task_of(events), annotations, events)
    assert sidecar["rt"]["HED"] == "(Delay/# s, (Agent-action, Participant-response, Press, {accuracy}))"
    assert "HED" not in sidecar["key"] and any(n.column == "key" for n in composition.notes)
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []


def test_a_trials_own_response_is_the_one_the_response_time_places(tmp_path):
    # "a square is shown and the participant responds": that response is the delayed one, not a second press
    annotations = {**ANNOTATIONS, "kind": {
        "flash": "(Sensory-event, Experimental-stimulus, Visual-presentation, Square), "
                 "(Agent-action, Participant-response, Press)",
        "beep": "(Sensory-event, Experimental-stimulus, Auditory-presentation, Beep), "
                "(Agent-action, Participant-response, Press, Incorrect-action)"}}
    sidecar, _ = composed_sidecar(task_of(EVENTS), annotations, EVENTS)
    assert "Agent-action" not in sidecar["kind"]["HED"]["flash"]
    assert "Incorrect-action" in sidecar["kind"]["HED"]["beep"]  # it says more than the response time's action
    errors, checks, rows = verdicts(sidecar, EVENTS, tmp_path)
    assert errors == [] and checks == [] and rows[0].count("Agent-action") == 1


def test_where_each_row_is_itself_an_action_its_modifiers_stay_with_it(tmp_path):
    events = ("onset\tduration\tact\tside\trt\n"
              "1.0\t0\tlift\tleft\t0.3\n"
              "3.0\t0\tlift\tright\t0.4\n")
    annotations = {"act": {"lift": "(Agent-action, Participant-response, Hand)"},
                   "side": {"left": "(Lift, Left)", "right": "(Lift, Right)"},
                   "rt": "(Delay/# s, (Agent-action, Participant-response, Press))"}
    sidecar, _ = composed_sidecar(task_of(events), annotations, events)
    assert "{side}" in sidecar["act"]["HED"]["lift"] and "{side}" not in sidecar["rt"]["HED"]
    errors, _, _ = verdicts(sidecar, events, tmp_path)
    assert errors == []
