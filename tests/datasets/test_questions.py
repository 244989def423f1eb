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
        ("sub-01_task-bart_events.tsv", b"onset\tduration\ttrial_type\tvalue\n1\t0\tpumps_demean\t6\n"
                                        b"2\t0\tcash_demean\t7\n"),
        ("task-bart_events.json", json.dumps({
            "trial_type": {"Description": "The kind of trial event.",
                           "Levels": {"cash_demean": "The participant cashes out the balloon."}},
            "value": {"Description": "The trigger code.", "Levels": {"6": "Trigger 6", "7": "The balloon pops."}},
        }).encode()),
    ])
    task = build_inventory(files).tasks[0]
    assert open_questions(task) == [
        Question("trial_type", "pumps_demean", "What does `pumps_demean` in column `trial_type` mean?"),
        Question("value", "6", "What happens at trigger 6 (column `value`)?"),
    ]


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
    ("Pumps demean", ("pumps_demean",), True),
    ("the pumpsDemean level", ("pumps_demean",), True),
    ("", ("x",), True),
    ("The participant pumps the balloon once more.", ("pumps_demean",), False),
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
                 Question("value", "6", "What happens at trigger 6 (column `value`)?")]
    table = questions_table(questions)
    assert table.splitlines()[0] == "column\tlevel\tdescription\tquestion"
    assert read_answers(table) == []  # nothing filled in yet: nothing answered
    filled = table.replace("\t\tWhat does", "\tWhich block of the session\tWhat does").replace(
        "6\t\tWhat happens", "6\tA red   circle appears\tWhat happens")
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
