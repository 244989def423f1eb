"""An assembled event carries one event type: a modifier level's own event type gives way to the event column's.

Synthetic events files only; the sidecars are checked with hedtools (validation and EventsChecker).
"""

from __future__ import annotations

import json

import pytest

from bidsdata.assembly import drop_repeated

pytest.importorskip("hed")

EVENTS = (
    "onset\tduration\tkind\tcue\tmood\n"
    "1.0\t0.5\tflash\tarrow\tcalm\n"
    "2.0\tn/a\tpress\tn/a\tcalm\n"
    "3.0\t0.5\tflash\tarrow\ttense\n"
    "4.0\tn/a\tpress\tn/a\ttense\n"
    "5.0\t0.5\tn/a\tchime\tn/a\n"
)
ANNOTATIONS = {
    "kind": {"flash": "Sensory-event, Experimental-stimulus, Visual-presentation, (Square, White)",
             "press": "Agent-action, Participant-response, (Experiment-participant, (Press, Push-button))"},
    # a modifier annotated alone: its levels open with an event type of their own
    "cue": {"arrow": "(Sensory-event, Cue, Visual-presentation, Arrow)",
            "chime": "Sensory-event, Cue, Auditory-presentation, Sound"},
    "mood": {"calm": "Event", "tense": "((Sensory-event), Stressed)"},
}


def _levels(annotations, column):
    value = annotations[column]
    assert isinstance(value, dict)
    return value


def _sidecar(annotations):
    return {column: {"HED": hed} for column, hed in annotations.items()}


def _assembled_issues(tmp_path, annotations, events=EVENTS):
    """hedtools' validation errors and EventsChecker issues for *events* with *annotations* as a sidecar."""
    from hed.errors import ErrorSeverity
    from hed.models import Sidecar, TabularInput
    from hed.tools.analysis.event_checker import EventsChecker

    from bidsdata.schemas import load_schema

    schema = load_schema(None)
    (tmp_path / "task-x_events.json").write_text(json.dumps(_sidecar(annotations)))
    (tmp_path / "sub-01_task-x_events.tsv").write_text(events)
    sidecar = Sidecar(str(tmp_path / "task-x_events.json"))
    tabular = TabularInput(str(tmp_path / "sub-01_task-x_events.tsv"), sidecar=sidecar)
    errors = [i for i in sidecar.validate(schema) + tabular.validate(schema)
              if i.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR]
    checker = EventsChecker(schema, tabular, "events")
    return errors, checker.validate_event_tags()


def test_modifier_event_type_left_out_where_the_event_column_gives_one(tmp_path):
    adjusted, notes = drop_repeated(ANNOTATIONS, {"sub-01_task-x_events.tsv": EVENTS}, ["kind", "cue", "mood"])

    # "arrow" only appears with "flash" (an event type of its own): its Sensory-event goes, its role stays
    assert _levels(adjusted, "cue")["arrow"] == "(Cue, Visual-presentation, Arrow)"
    note = next(n for n in notes if (n.column, n.level) == ("cue", "arrow"))
    assert note.items == ("Sensory-event",) and not note.redundant and "event type" in note.reason
    # a group left empty goes with its tag; parentheses stay balanced
    assert _levels(adjusted, "mood")["tense"] == "(Stressed)"
    # a level that said nothing but "Event" is left out of the sidecar, and reported as saying nothing else
    assert "calm" not in _levels(adjusted, "mood")
    assert any(n.level == "calm" and n.redundant and n.items == ("Event",) for n in notes)
    # the event column keeps its event types
    assert adjusted["kind"] == ANNOTATIONS["kind"]
    errors, checked = _assembled_issues(tmp_path, adjusted)
    assert errors == [] and checked == []


def test_modifier_keeps_its_event_type_where_no_other_column_gives_one(tmp_path):
    adjusted, _ = drop_repeated(ANNOTATIONS, {"sub-01_task-x_events.tsv": EVENTS}, ["kind", "cue", "mood"])
    # "chime" is alone at 5.0 (kind is n/a): it is what gives that event its type
    assert _levels(adjusted, "cue")["chime"] == ANNOTATIONS["cue"]["chime"]


def test_level_keeps_its_event_type_when_one_of_its_events_has_no_other():
    events = ("onset\tduration\tkind\tcue\n"
              "1.0\t0.5\tflash\tarrow\n"
              "2.0\t0.5\tn/a\tarrow\n")
    annotations = {"kind": {"flash": "Sensory-event, Experimental-stimulus, Visual-presentation"},
                   "cue": {"arrow": "Sensory-event, Cue, Visual-presentation, Arrow"}}
    adjusted, notes = drop_repeated(annotations, {"a_events.tsv": events}, ["kind", "cue"])
    assert "Sensory-event" in _levels(adjusted, "cue")["arrow"]
    assert not any("event type" in n.reason for n in notes)


def test_event_type_column_is_found_from_the_data_not_its_name(tmp_path):
    # neither name says "event"; "b" is the column whose levels all carry an event type, "a" only one of two
    events = ("onset\tduration\ta\tb\n"
              "1.0\t0.5\tx\tp\n"
              "2.0\t0.5\ty\tq\n"
              "3.0\t0.5\tx\tq\n")
    annotations = {"a": {"x": "(Agent-action, Task-activity, Walk)", "y": "Label/plain"},
                   "b": {"p": "Sensory-event, Experimental-stimulus, Auditory-presentation, Tone",
                         "q": "Sensory-event, Experimental-stimulus, Auditory-presentation, Buzz"}}
    adjusted, notes = drop_repeated(annotations, {"sub-01_task-x_events.tsv": events}, ["a", "b"])
    assert _levels(adjusted, "a")["x"] == "(Task-activity, Walk)"
    assert adjusted["b"] == annotations["b"]
    assert [(n.column, n.level, n.items) for n in notes] == [("a", "x", ("Agent-action",))]
    errors, checked = _assembled_issues(tmp_path, adjusted, events)
    assert errors == [] and checked == []


def test_value_template_gives_an_event_type_but_is_never_changed():
    events = ("onset\tduration\tstim\tcue\n"
              "1.0\t0.5\t7\tarrow\n")
    annotations = {"stim": "Sensory-event, Experimental-stimulus, Visual-presentation, (Image, ID/#)",
                   "cue": {"arrow": "Sensory-event, Cue, Arrow"}}
    adjusted, _ = drop_repeated(annotations, {"a_events.tsv": events}, ["stim", "cue"])
    assert adjusted["stim"] == annotations["stim"]
    assert _levels(adjusted, "cue")["arrow"] == "Cue, Arrow"


def test_a_level_keeps_its_event_type_where_a_response_delay_already_makes_several_events(tmp_path):
    events = ("onset\tduration\tkind\toutcome\treaction_time\n"
              "1.0\t0.5\tflash\twithheld\t0.42\n"
              "3.0\t0.5\tflash\twithheld\t0.51\n"
              "5.0\t0.5\tflash\tslipped\t0.47\n")
    annotations = {
        "kind": {"flash": "(Sensory-event, Experimental-stimulus, Visual-presentation, (Square, White))"},
        "outcome": {"withheld": "(Agent-action, Participant-response, Halt)",
                    "slipped": "(Agent-action, Participant-response, (Press, Incorrect-action))"},
        "reaction_time": "(Delay/# s, (Agent-action, Participant-response, Press))",
    }
    adjusted, _ = drop_repeated(annotations, {"sub-01_task-x_events.tsv": events}, list(annotations))
    # each row is a stimulus and a delayed response already: the outcome's group is an event of its own
    assert _levels(adjusted, "outcome") == annotations["outcome"]
    errors, checked = _assembled_issues(tmp_path, adjusted, events)
    assert errors == [] and checked == [], "every top-level group of a row of several events has its type"


def test_a_lone_group_that_loses_its_event_type_joins_the_rows_event(tmp_path):
    events = ("onset\tduration\tkind\tcue\n"
              "1.0\t0.5\tflash\tarrow\n"
              "2.0\t0.5\tflash\tn/a\n")
    annotations = {"kind": {"flash": "(Sensory-event, Experimental-stimulus, Visual-presentation, Square)"},
                   "cue": {"arrow": "(Sensory-event, Target, Visual-presentation, Arrow)"}}
    adjusted, _ = drop_repeated(annotations, {"sub-01_task-x_events.tsv": events}, ["kind", "cue"])
    # Still a group, it would be an event of its own with no event type (EventsChecker's MISSING_EVENT_TYPE).
    assert _levels(adjusted, "cue")["arrow"] == "Target, Visual-presentation, Arrow"
    errors, checked = _assembled_issues(tmp_path, adjusted, events)
    assert errors == [] and checked == []
