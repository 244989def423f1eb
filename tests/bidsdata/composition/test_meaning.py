"""Levels told apart by what they mean, value units read from the data, and shapes hedtools cannot assemble.

Every example is made up; each sidecar is checked with hedtools itself.
"""

from __future__ import annotations

from bidsdata.composition.distinct import distinguish, level_texts, meaning_items
from bidsdata.composition.nesting import referable
from bidsdata.composition.tags import names
from bidsdata.glossary import Glossary, readme_description
from bidsdata.units import time_unit_from_values
from bidsdata.value_templates import propose_value_template
from tests.bidsdata.composition.conftest import VERSION, composed_sidecar, task_of, verdicts

CONTEXT = ["Loud or quiet tones at a fast or slow pace", "The pace changes between runs."]


# --- the task's own words read into its codes ---------------------------------------------------------------------
def test_code_tokens_are_read_as_the_context_words_they_abbreviate():
    glossary = Glossary.of(CONTEXT)
    assert glossary.gloss("ld_fast") == ["loud", "fast"]  # letters kept in order
    assert glossary.gloss("qu_sl") == ["quiet", "slow"]  # clipped words
    assert glossary.gloss("sp") == ["slow", "pace"]  # initials of consecutive words
    assert glossary.gloss("LoudSlow") == ["loud", "slow"]


def test_a_token_the_context_reads_two_ways_or_not_at_all_stays_as_written():
    glossary = Glossary.of(["pale petals and pink paper"])
    assert glossary.gloss("p_zq") == ["p", "zq"]  # one letter, and no word
    assert glossary.gloss("pp") == ["pp"]  # "pale petals" or "pink paper"
    assert glossary.gloss("pi") == ["pink"]


def test_an_earlier_tier_decides_before_a_later_one():
    glossary = Glossary.of(["quiet tones", "quick answers"])
    assert glossary.gloss("qu") == ["quiet"]


def test_the_readme_description_line_is_preferred_to_its_opening():
    readme = "Made by a lab.\nDescription: Loud or quiet tones\n\nLicence text."
    assert readme_description(readme) == "Loud or quiet tones"
    assert readme_description("An opening paragraph.\n\nMore.") == "An opening paragraph."


def test_level_codes_without_descriptions_are_read_through_the_glossary():
    texts = level_texts({"ld_fast": "x", "qu_slow": "y"}, {}, Glossary.of(CONTEXT))
    assert texts == {"ld_fast": ["loud", "fast"], "qu_slow": ["quiet", "slow"]}


def test_words_the_offline_annotator_reads_as_nothing_may_name_schema_tags():
    # "high" is a schema tag (a categorical level value) though the annotator gives no tag for it
    assert meaning_items(["high"], names(VERSION), VERSION) == ["High"]
    assert meaning_items(["zzword"], names(VERSION), VERSION) == []


def test_coded_levels_are_told_apart_by_the_words_their_codes_abbreviate(tmp_path):
    events = ("onset\tduration\tstim\n"
              "1.0\t0.5\tlo_rp\n2.0\t0.5\thi_rp\n3.0\t0.5\tlo_rp\n4.0\t0.5\thi_rp\n")
    task = task_of(events)
    task.context.task_name = "Low or high tones at a rapid pace"
    annotations = {"stim": {"lo_rp": "Sensory-event, Experimental-stimulus, Auditory-presentation, Tone",
                            "hi_rp": "Sensory-event, Experimental-stimulus, Auditory-presentation, Tone"}}
    sidecar, composition = composed_sidecar(task, annotations, events)
    hed = sidecar["stim"]["HED"]
    assert "Low" in hed["lo_rp"] and "High" in hed["hi_rp"]
    assert "Label/" not in hed["lo_rp"] + hed["hi_rp"]
    assert composition.labelled == []
    errors, checks, _ = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == []


# --- columns whose levels differ only by their names ----------------------------------------------------------------
EVENTS = ("onset\tduration\tkind\tflag\tscore\n"
          "1.0\t0.5\tpicture\t0\t1\n2.0\t0.5\tpicture\t1\t0\n3.0\t0.5\tsound\t1\t1\n4.0\t0.5\tsound\t0\t0\n")
LEVELS = {
    "kind": {"picture": "Sensory-event, Experimental-stimulus, Visual-presentation, Image",
             "sound": "Sensory-event, Experimental-stimulus, Auditory-presentation, Sound"},
    "flag": {"0": "Correct-action", "1": "Correct-action"},
    "score": {"0": "Experimental-trial", "1": "Experimental-trial"},
}


def test_a_column_whose_levels_differ_only_by_name_is_left_out_and_asked_about(tmp_path):
    sidecar, composition = composed_sidecar(task_of(EVENTS), LEVELS, EVENTS)
    assert "HED" not in sidecar.get("flag", {}) and "HED" not in sidecar.get("score", {})
    asked = {(n.column, n.level) for n in composition.notes if "told apart only by their names" in n.reason}
    assert asked == {("flag", "0"), ("flag", "1"), ("score", "0"), ("score", "1")}
    assert not [c for c, _ in composition.labelled if c in ("flag", "score")]
    errors, checks, rows = verdicts(sidecar, EVENTS, tmp_path)
    assert errors == [] and checks == [] and all(rows)


def test_labels_of_two_columns_never_repeat_one_tag_in_an_event(tmp_path):
    events = ("onset\tduration\tkind\tflag\tscore\n"
              "1.0\t0.5\tpicture\t0\t0\n2.0\t0.5\tpicture\t1\t1\n3.0\t0.5\tsound\t2\t2\n"
              "4.0\t0.5\tpicture\t0\t0\n5.0\t0.5\tpicture\t1\t1\n6.0\t0.5\tsound\t2\t2\n"
              "7.0\t0.5\tn/a\t0\t0\n")  # a row without an event: the columns stay at top level
    levels = {"kind": LEVELS["kind"],
              "flag": {"0": "Correct-action", "1": "Correct-action", "2": "Incorrect-action"},
              "score": {"0": "Experimental-trial", "1": "Experimental-trial", "2": "Experimental-trial, Reward"}}
    sidecar, composition = composed_sidecar(task_of(events), levels, events)
    assert ("flag", "0") in composition.labelled and ("score", "0") in composition.labelled
    errors, _, _ = verdicts(sidecar, events, tmp_path)
    assert errors == []  # each column's Label says its column: "Label/0" would be twice in the first event


# --- data hedtools cannot take as written ----------------------------------------------------------------------------
def test_a_column_with_padded_values_loses_its_hed_with_the_fix_in_a_note(tmp_path):
    events = ("onset\tduration\tkind\tside\n"
              "1.0\t0.5\tpicture\t left\n2.0\t0.5\tsound\t right\n")
    levels = {"kind": LEVELS["kind"], "side": {" left": "Left", " right": "Right"}}
    sidecar, composition = composed_sidecar(task_of(events), levels, events)
    assert "HED" not in sidecar.get("side", {})
    note = next(n for n in composition.notes if n.column == "side")
    assert "remove the spaces" in note.reason
    errors, checks, rows = verdicts(sidecar, events, tmp_path)
    assert errors == [] and checks == [] and all(rows)


def test_columns_named_by_digits_are_never_referenced(tmp_path):
    assert not referable("3") and referable("col3") and referable("x-1")
    events = ("onset\tduration\tkind\t3\n"
              "1.0\t0.5\tpicture\tfir\n2.0\t0.5\tsound\toak\n3.0\t0.5\tsound\tn/a\n")
    levels = {"kind": LEVELS["kind"], "3": {"fir": "Green", "oak": "Brown"}}
    sidecar, _ = composed_sidecar(task_of(events), levels, events)
    assert "{3}" not in str(sidecar)
    errors, _, rows = verdicts(sidecar, events, tmp_path)  # assembling raised inside hedtools before
    assert errors == [] and all(rows)


# --- units from the data -------------------------------------------------------------------------------------------
def test_undeclared_time_units_are_read_from_the_magnitude():
    assert time_unit_from_values(["812", "1095", "n/a", "640"]) == "ms"
    assert time_unit_from_values(["0.81", "1.1", "nan"]) == "s"
    assert time_unit_from_values(["n/a"]) == "s"
    template = propose_value_template("answer_latency", description="response time",
                                      sample_values=["812", "1095"], hed_version=VERSION)
    assert template.startswith("(Delay/# ms")
    declared = propose_value_template("answer_latency", description="response time", units="s",
                                      sample_values=["812", "1095"], hed_version=VERSION)
    assert declared.startswith("(Delay/# s")


# --- what tells levels apart when their words do not --------------------------------------------------------------
KEY_PRESS = "(Agent-action, Participant-response, (Press, Keyboard-key))"


def test_a_key_the_description_calls_by_its_code_gets_the_code_as_the_keys_value():
    levels = {"7": KEY_PRESS, "8": KEY_PRESS}
    described = {"7": "The participant presses the key with code 7.",
                 "8": "The participant presses the key with code 8."}
    told, labelled = distinguish(levels, level_texts(levels, described), names(VERSION), VERSION, nested=True)
    assert told == {"7": "(Agent-action, Participant-response, (Press, Keyboard-key/7))",
                    "8": "(Agent-action, Participant-response, (Press, Keyboard-key/8))"}
    assert labelled == []


def test_codes_no_description_names_stay_labels():
    levels = {"7": KEY_PRESS, "8": KEY_PRESS}
    told, labelled = distinguish(levels, level_texts(levels, {}), names(VERSION), VERSION, nested=True)
    assert sorted(labelled) == ["7", "8"] and "Label/7" in told["7"] and "Keyboard-key/" not in told["7"]


HOLE_EVENTS = ("onset\tduration\tkind\tside\n" "1.0\t0.5\tflash\tnear\n" "2.0\t0.5\tflash\tfar\n"
               "3.0\t0.5\tbeep\tnear\n" "4.0\t0.5\tbeep\tfar\n")


def test_a_modifier_level_that_only_repeats_its_event_gets_no_hed_and_a_question(tmp_path):
    annotations = {"kind": {"flash": "Sensory-event, Experimental-stimulus, Visual-presentation, (Square, White)",
                            "beep": "Sensory-event, Experimental-stimulus, Auditory-presentation, Beep"},
                   "side": {"near": "Sensory-event, Experimental-stimulus", "far": "Sensory-event, Red"}}
    sidecar, composition = composed_sidecar(task_of(HOLE_EVENTS), annotations, HOLE_EVENTS)
    # A Label would be a name, not a meaning: the level has no HED of its own, and the lab is asked.
    assert sidecar["side"]["HED"] == {"far": "Red"}
    assert any(n.column == "side" and n.level == "near" and "describe what sets it apart" in n.reason
               for n in composition.notes)
    errors, checks, rows = verdicts(sidecar, HOLE_EVENTS, tmp_path)
    assert errors == [] and checks == [] and all("Sensory-event" in r for r in rows)
