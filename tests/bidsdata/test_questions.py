"""Questions back to the lab (bidsdata.questions): which levels and columns get one, their wording, the table."""

from __future__ import annotations

import json

import pytest

from bidsdata.archive import read_uploads
from bidsdata.inventory import ColumnInventory, LevelInventory, TaskInventory, build_inventory
from bidsdata.questions import (
    Answer,
    AnswersError,
    Question,
    open_questions,
    questions_table,
    read_answers,
    restates,
)


def _task(*columns: ColumnInventory) -> TaskInventory:
    return TaskInventory(task="x", sidecar_name="task-x_events.json", events_files=[], columns=list(columns))


def _level(value: str, description: str, needs: bool = False) -> LevelInventory:
    return LevelInventory(value=value, count=1, description=description, needs_description=needs)


def test_a_made_up_description_and_a_bare_code_get_questions_worded_for_a_lab():
    files = read_uploads([
        ("sub-01_task-sorting_events.tsv", b"onset\tduration\ttrial_type\tvalue\n1\t0\tshuffle_deck\t6\n"
                                           b"2\t0\tdeal_card\t7\n"),
        ("task-sorting_events.json", json.dumps({
            "trial_type": {"Description": "The kind of trial event.",
                           "Levels": {"deal_card": "A card is dealt face up."}},
            "value": {"Description": "The trigger code.", "Levels": {"6": "Trigger 6", "7": "The deck is empty."}},
        }).encode()),
    ])
    task = build_inventory(files).tasks[0]
    assert open_questions(task) == [
        Question("trial_type", "shuffle_deck", "What does `shuffle_deck` mean in column `trial_type`?"),
        Question("value", "6", "What does `6` mean in column `value` (its other codes: 7)?"),
    ]


def test_a_code_is_asked_about_as_a_code_of_its_column_never_as_a_trigger():
    # Codes 0/1 of an outcome column used to be asked about as "trigger 0/1": a role the data never showed.
    outcome = ColumnInventory(name="hit", kind="categorical", description="Whether the target was hit.",
                              levels=[_level("0", "hit: 0", needs=True), _level("1", "hit: 1", needs=True)])
    asked = open_questions(_task(outcome))
    assert [q.text for q in asked] == ["What does `0` mean in column `hit` (its other codes: 1)?",
                                       "What does `1` mean in column `hit` (its other codes: 0)?"]
    assert not any("trigger" in q.text.lower() for q in asked)


def test_a_column_of_file_names_is_a_value_column_not_a_question_per_file():
    rows = "".join(f"{i}\t0\tsounds/voice_{i % 6}.wav\n" for i in range(1, 13))
    files = read_uploads([("sub-01_task-hear_events.tsv", f"onset\tduration\tclip\n{rows}".encode())])
    task = build_inventory(files).tasks[0]
    assert task.column("clip").kind == "value"
    assert [q for q in open_questions(task) if q.column == "clip"] == []
    # A sidecar that declares such a column categorical still asks no question per file.
    declared = ColumnInventory(name="clip", kind="categorical", description="The clip played.",
                               levels=[_level(f"voice_{i}.wav", "", needs=True) for i in range(3)])
    assert open_questions(_task(declared)) == []


def test_a_categorical_column_without_a_description_gets_a_column_question_first():
    stage = ColumnInventory(name="stage", kind="categorical", description="stage", needs_description=True,
                            levels=[_level("early", "The first block, before training."),
                                    _level("late", "stage: late", needs=True)])
    rt = ColumnInventory(name="rt", kind="value", description="rt", needs_description=True)
    assert [(q.column, q.level) for q in open_questions(_task(stage, rt))] == [("stage", None), ("stage", "late")]
    expected = "What does column `stage` record? Is it a condition of the experiment?"
    assert open_questions(_task(stage))[0].text == expected


@pytest.mark.parametrize(("description", "names", "expected"), [
    ("Trigger 6", ("value", "6"), True),
    ("6.0", ("value", "6"), True),
    ("Stage 6", ("stage", "6"), True),
    ("Blink twice", ("blink_twice",), True),
    ("the blinkTwice level", ("blink_twice",), True),
    ("", ("x",), True),
    ("The participant blinks at the star once more.", ("blink_twice",), False),
    ("The left hand.", ("left",), False),  # a named level is not restated by its column's name
    ("Trigger 6: a red circle appears", ("value", "6"), False),
])
def test_restates_means_nothing_said_beyond_the_names(description, names, expected):
    assert restates(description, *names) is expected


def test_levels_the_lab_described_ask_nothing():
    hand = ColumnInventory(name="hand", kind="categorical", description="The hand that pressed.",
                           levels=[_level("left", "The left hand."), _level("right", "The right hand.")])
    assert open_questions(_task(hand)) == []


def test_the_questions_table_round_trips_through_the_answers_reader():
    questions = [Question("stage", None, "What does column `stage` record?"),
                 Question("value", "6", "What does `6` mean in column `value`?")]
    table = questions_table(questions)
    assert table.splitlines()[0] == "column\tlevel\tdescription\tquestion"
    assert read_answers(table) == []  # nothing filled in yet: nothing answered
    filled = table.replace("stage\t\t\tWhat", "stage\t\tWhich block of the session\tWhat").replace(
        "6\t\tWhat does", "6\tA red   circle appears\tWhat does")
    assert read_answers(filled) == [Answer("stage", None, "Which block of the session"),
                                    Answer("value", "6", "A red circle appears")]


@pytest.mark.parametrize(("text", "message"), [
    ("col\tlevel\tdescription\n", "missing: column"),
    ("column\tlevel\tdescription\n\tx\tsome text\n", "line 2: no column name"),
    ("column\tlevel\tdescription\nx\t\t" + "a" * 2001 + "\n", "longer than 2000"),
    ("column\tlevel\tdescription\nx\x00\t\ty\n", "NUL"),
])
def test_a_table_that_cannot_be_read_is_refused_naming_the_problem(text, message):
    with pytest.raises(AnswersError, match=message):
        read_answers(text)
