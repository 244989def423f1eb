"""Reading a HED string out of chatty, fenced, quoted or JSON-wrapped answers."""

from __future__ import annotations

import pytest

from agents.annotation.llm_annotator import annotate_with_llm
from agents.annotation.parse import parse_annotation
from agents.state import AnnotationState


@pytest.mark.parametrize("reply, expected", [
    ("Sensory-event, (Red, Circle)", "Sensory-event, (Red, Circle)"),
    ("Sure! Here is the annotation:\n\nSensory-event, Visual-presentation, (Red, Circle)\n\n"
     "This captures the red circle.", "Sensory-event, Visual-presentation, (Red, Circle)"),
    ("```\nSensory-event, (Red, Circle)\n```", "Sensory-event, (Red, Circle)"),
    ("```hed\nSensory-event, Red\n```\nExplanation: the event is visual.", "Sensory-event, Red"),
    ('```json\n{"annotation": "Sensory-event, Red"}\n```', "Sensory-event, Red"),
    ('{"hed": "Sensory-event, Blue"}', "Sensory-event, Blue"),
    ('Here: {"hed_string": "Sensory-event, Blue"} done', "Sensory-event, Blue"),
    ('{"tags": ["Sensory-event", ["Red", "Circle"]]}', "Sensory-event, (Red, Circle)"),
    ('["Sensory-event", "Red"]', "Sensory-event, Red"),
    ('"Sensory-event, Red"', "Sensory-event, Red"),
    ("\u201cSensory-event, Red\u201d", "Sensory-event, Red"),
    ("**HED annotation:** Sensory-event, Red.", "Sensory-event, Red"),
    ("- HED: `Sensory-event, (Tone, Frequency/1000 Hz)`", "Sensory-event, (Tone, Frequency/1000 Hz)"),
    ("The answer is: Agent-action, (Press, Push-button)", "Agent-action, (Press, Push-button)"),
    ("Okay\nSensory-event, Red", "Sensory-event, Red"),
    ("", ""),
    ("   \n  ", ""),
    ("I cannot help with that.", ""),
    ("Sure, I would be happy to annotate this event for you!", ""),
    ("[" * 600 + '"Red"' + "]" * 600, ""),  # json and the tree walk would exceed the recursion limit
])
def test_parse_annotation(reply, expected):
    assert parse_annotation(reply) == expected


async def test_unreadable_answer_becomes_a_parse_error(scripted_llm):
    state = AnnotationState(description="A red circle appears.")
    annotation, issue = await annotate_with_llm(state, scripted_llm(["I cannot help with that."]), state.description)
    assert annotation == ""
    assert issue is not None and issue.code == "PARSE_ERROR" and issue.hint
