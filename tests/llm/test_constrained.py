"""Structured answers: what the model may write, and how it becomes a HED string."""

from __future__ import annotations

import json
import re

import pytest

from agents.annotation.constrained import StructuredOutput, tag_forms
from agents.annotation.structure import load_structure, render_structure, structure_of
from agents.validation.agent import validate_hed
from agents.vocabulary import get_vocabulary

VERSION = "8.4.0"


@pytest.fixture(scope="module")
def vocabulary():
    return get_vocabulary(VERSION)


@pytest.fixture(scope="module")
def output(vocabulary):
    names = ["Sensory-event", "Visual-presentation", "Red", "Circle", "Left-side-of", "Computer-screen",
             "Frequency", "Label", "Onset", "Definition"]
    return StructuredOutput("json_schema", tag_forms([vocabulary.get(n) for n in names], vocabulary))


def test_forms_leave_out_tags_a_structure_cannot_place(output):
    names = {f.name for f in output.forms}
    assert "Onset" not in names and "Definition" not in names
    assert {"Red", "Frequency", "Label"} <= names


def test_value_tags_keep_their_value_class_and_units(output):
    frequency = next(f for f in output.forms if f.name == "Frequency")
    assert frequency.units[0] == "Hz" and "kHz" in frequency.units
    assert frequency.label.startswith("Frequency/<number> <unit: Hz|")
    assert output.accept("Frequency/1000 Hz") == "Frequency/1000 Hz"
    assert output.accept("frequency/2.5 kHz") == "Frequency/2.5 kHz"
    assert output.accept("Frequency/loud Hz") is None
    assert output.accept("Frequency/1000 parsecs") is None
    assert output.accept("Label/Word-A") == "Label/Word-A"
    assert output.accept("Label/two words") is None


def test_json_schema_enumerates_the_slice_only(output):
    schema = output.json_schema()
    enum = schema["$defs"]["tag"]["anyOf"][0]["enum"]
    assert "Red" in enum and "Blorp-tag" not in enum and "Frequency" not in enum
    patterns = [a["pattern"] for a in schema["$defs"]["tag"]["anyOf"][1:]]
    assert any(p.startswith("^Frequency/") for p in patterns)
    assert all(re.compile(p) for p in patterns)
    response_format, extra_body = output.request()
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True
    assert extra_body is None


def test_schema_converts_to_a_llama_cpp_grammar(output):
    converter = pytest.importorskip("llama_cpp.llama_grammar")
    grammar = converter.json_schema_to_gbnf(json.dumps(output.json_schema()))
    assert '"\\"Red\\""' in grammar


def test_llama_cpp_mode_sends_a_grammar_of_the_slice(vocabulary, output):
    llama = StructuredOutput("llama_cpp", output.forms)
    response_format, extra_body = llama.request()
    grammar = extra_body["grammar"]
    assert response_format is None
    assert grammar.startswith("root ::=") and '"Red"' in grammar and '"Frequency/"' in grammar
    assert '"Blorp-tag"' not in grammar


def test_render_drops_repeats_and_empty_groups():
    items = ["Sensory-event", "Sensory-event", ["Red", "Circle", "red"], [], [[]], ["Circle", "Red"],
             [["Blue"]], "Blue"]
    assert render_structure(items) == "Sensory-event, (Red, Circle), Blue"


def test_render_keeps_only_allowed_tags(output):
    items = ["Sensory-event", "Blorp-tag", ["Red", "Circle", ["Left-side-of", "Computer-screen"]], ["Blorp"]]
    hed = render_structure(items, output.accept)
    assert hed == "Sensory-event, (Red, Circle, (Left-side-of, Computer-screen))"
    assert validate_hed(hed, VERSION) == []


def test_structure_round_trips_a_hed_string():
    hed = "Sensory-event, (Red, Circle, (Left-side-of, Computer-screen)), Label/A"
    assert render_structure(structure_of(hed)) == hed


@pytest.mark.parametrize("text, expected", [
    ('{"tags": ["Red", ["Circle", "Red"]]}', ["Red", ["Circle", "Red"]]),
    ('```json\n{"tags": ["Red"]}\n```', ["Red"]),
    ('{"tags": ["Red", ["Circle", "Blu', ["Red", ["Circle"]]),  # cut off at the token limit
    ('Here you go: ["Red", "Circle"] hope it helps', ["Red", "Circle"]),
    ('{"annotation": "Red, Circle"}', "Red, Circle"),
    ("no json at all", None),
])
def test_load_structure_reads_complete_and_truncated_answers(text, expected):
    assert load_structure(text) == expected


def test_read_ignores_tags_outside_the_slice_in_a_prose_answer(output):
    assert output.read("Sure: Sensory-event, Blorp-tag, (Red, Circle)") == "Sensory-event, (Red, Circle)"
    assert output.read('{"tags": ["Blorp-tag"]}') == ""


def test_read_treats_runaway_nesting_as_no_answer(output):
    assert output.read('{"tags": ' + "[" * 600 + '"Red"' + "]" * 600 + "}") == ""
