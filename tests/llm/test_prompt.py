"""Small prompts: the rules and examples once, the vocabulary slice the description needs, errors later."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest

from agents.annotation.llm_annotator import build_messages
from agents.state import AnnotationState, Iteration, ValidationIssue, WorkflowOptions

DEV_SET = Path(__file__).resolve().parents[3] / "shared" / "data" / "hed_gold_dev.csv"
TARGET_MEDIAN_CHARS = 12_000


def _size(messages) -> int:
    return sum(len(m["content"]) for m in messages)


def test_prompt_has_the_stable_part_first():
    first = build_messages(AnnotationState(description="A red circle appears."), "A red circle appears.")
    second = build_messages(AnnotationState(description="A tone is heard."), "A tone is heard.")
    assert [m["role"] for m in first] == ["system", "user"]
    assert first[0] == second[0]
    assert "HED rules" in first[0]["content"] and "Examples:" in first[0]["content"]
    assert "Red [" in first[1]["content"] and "Description: A red circle appears." in first[1]["content"]


@pytest.mark.skipif(not DEV_SET.exists(), reason="the shared dev set is not beside the project")
def test_median_prompt_over_the_dev_set_is_small():
    with DEV_SET.open(newline="", encoding="utf-8") as fh:
        descriptions = [row["description"] for row in csv.DictReader(fh)][::5]
    sizes = [_size(build_messages(AnnotationState(description=d), d)) for d in descriptions]
    assert statistics.median(sizes) <= TARGET_MEDIAN_CHARS


def test_later_attempts_carry_the_errors_with_hints():
    state = AnnotationState(description="A red circle appears.", options=WorkflowOptions())
    state.iterations.append(Iteration(number=1, annotation="Sensory-event, Blorp-tag", issues=[
        ValidationIssue(code="TAG_INVALID", message="'Blorp-tag' is not a valid tag.", tag="Blorp-tag",
                        hint="Use a listed tag. Closest tags: Block."),
        ValidationIssue(code="TAG_EXTENDED", message="extended", severity="warning", tag="Item/Thing"),
    ]))
    state.pending_feedback = "- TAG_INVALID in 'Blorp-tag': Use a listed tag.\nSummary: Replace Blorp-tag."
    user = build_messages(state, state.description)[1]["content"]
    assert "Attempt 2. Your previous annotation: Sensory-event, Blorp-tag" in user
    assert "- TAG_INVALID (Blorp-tag): 'Blorp-tag' is not a valid tag. Hint: Use a listed tag." in user
    assert "TAG_EXTENDED" not in user  # warnings are not errors to fix
    assert "Advice: Replace Blorp-tag." in user


def test_structured_prompt_shows_examples_as_structures():
    messages = build_messages(AnnotationState(description="x"), "x", structured=True)
    assert 'Answer: {"tags": ["Sensory-event", "Visual-presentation", ["Red", "Circle"' in messages[0]["content"]
