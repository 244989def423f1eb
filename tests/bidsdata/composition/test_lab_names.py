"""The composed definitions never take a name of the lab's: not a column's, not a sidecar key's, not one of the
lab's own definitions. hedtools judges each sidecar."""

from __future__ import annotations

from bidsdata.composition.definitions import ENTRY
from tests.bidsdata.composition.conftest import composed_sidecar, task_of, verdicts

# A made-up lab whose events file has a column named like the composed entry.
EVENTS = (
    "onset\tduration\tevent_type\tload\thed_def_composed\n"
    "1.0\t0\tflash\tlow\tleft\n"
    "2.0\t0\tpress\tlow\tright\n"
    "3.0\t0\tflash\thigh\tleft\n"
    "4.0\t0\tpress\thigh\tright\n"
)
SIDECAR = {
    "event_type": {"Levels": {"flash": "A white square flashes.", "press": "The participant presses a button."}},
    "load": {"Description": "Memory load condition of the block.",
             "Levels": {"low": "Two items to remember.", "high": "Six items to remember."}},
    "hed_def_composed": {"Description": "Which hand responds.",
                         "Levels": {"left": "Left hand.", "right": "Right hand."}},
}
ANNOTATIONS = {
    "event_type": {"flash": "Sensory-event, Visual-presentation, (Square, White)",
                   "press": "Agent-action, Participant-response, (Press, Push-button)"},
    "load": {"low": "Sensory-event, (Item-count/2)", "high": "Sensory-event, (Item-count/6)"},
    "hed_def_composed": {"left": "(Left-side-of, Hand)", "right": "(Right-side-of, Hand)"},
}


def test_a_column_named_like_the_composed_entry_keeps_its_hed(tmp_path):
    sidecar, composition = composed_sidecar(task_of(EVENTS, SIDECAR), ANNOTATIONS, EVENTS)
    assert composition.definitions, "the load factor is composed into definitions"
    assert set(sidecar["hed_def_composed"]["HED"]) == {"left", "right"}  # the lab's column, not the definitions
    assert composition.entry.casefold() not in {"onset", "duration", "event_type", "load", ENTRY}
    assert sidecar[composition.entry] == composition.definitions
    errors, _, rows = verdicts(sidecar, EVENTS, tmp_path)
    assert errors == []
    assert all("Hand" in row for row in rows)  # every row still carries the lab column's HED


def test_a_lab_definition_named_like_a_composed_one_is_not_defined_twice(tmp_path):
    # The lab already defines "Low" (what the composer would call the factor level); ours must be another name.
    lab = {**SIDECAR, "hed_def_lab": {"HED": {"low": "(Definition/Low, (Item-count/2))"}}}
    sidecar, _ = composed_sidecar(task_of(EVENTS, lab), ANNOTATIONS, EVENTS)
    ours = sidecar["load"]["HED"]["low"]
    assert ours.startswith("Def/") and ours.lower() != "def/low"
    assert sidecar["hed_def_lab"]["HED"]["low"] == "(Definition/Low, (Item-count/2))"
    errors, _, _ = verdicts(sidecar, EVENTS, tmp_path)
    assert errors == []
