"""Every table the app writes is inert in a spreadsheet program (bidsdata.cells): no cell opens as a formula,
no line break or tab inside a cell starts a row or a column, and the table reads back with its shape."""

from __future__ import annotations

import csv
import io

import pytest
from hed.tools.analysis.annotation_util import hed_to_df
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotations.exports import formats as exports
from annotations.models import AnnotationSession
from bidsdata import cells
from bidsdata.questions import Question, questions_table, read_answers
from bidsdata.sidecar import sidecar_to_spreadsheet
from tests.support.reviews import make_session

FORMULA = ("=", "+", "-", "@", "\t", "\r")
# Text of any kind, with the characters that matter here made frequent.
TEXT = st.text(alphabet=st.one_of(st.sampled_from("=+-@'\t\r\n\"., 0123456789e\ufeff\u200b\u2060"),
                                  st.characters()), max_size=12)
# Shows nothing before a formula, which a spreadsheet program may then run: a byte order mark, zero-width ones.
UNSEEN = "\ufeff\u200b\u200c\u200d\u2060"


def _inert(cell: str) -> bool:
    shown = cell.lstrip(UNSEEN + " ")
    return not shown.startswith(FORMULA) or bool(cells._NUMBER.fullmatch(shown.strip()))


def _read(text: str, delimiter: str = "\t") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


@pytest.mark.parametrize(("value", "written"), [
    ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"), ("+cmd", "'+cmd"), ("@SUM(1)", "'@SUM(1)"), ("-2+3", "'-2+3"),
    ("\r=cmd|' /C calc'!A0", "' =cmd|' /C calc'!A0"), ("ok\r=cmd|' /C calc'!A0", "ok =cmd|' /C calc'!A0"),
    ("  =1+1", "'  =1+1"), ("'=1", "''=1"),
    ("-2.5", "-2.5"), ("+3", "+3"), ("-1e3", "-1e3"), ("-", "'-"), ("a - b", "a - b"), ("", ""),
    ("\ufeff=HYPERLINK(1)", "'\ufeff=HYPERLINK(1)"), ("\u200b\u2060@SUM(1)", "'\u200b\u2060@SUM(1)"),
    (" \ufeff +cmd", "' \ufeff +cmd"), ("\ufeff-2", "\ufeff-2"),
])
def test_a_cell_is_written_inert(value, written):
    assert cells.neutralise(value) == written
    assert cells.restore(written) == value.replace("\r", " ")


def test_a_bare_cr_inside_a_cell_starts_no_row():
    text = cells.table_text([["column", "description"], ["x", "fine\r=cmd|' /C calc'!A0"]])
    assert text.count("\n") == 2 and "\r" not in text
    assert [line.split("\t")[1] for line in text.splitlines()] == ["description", "fine =cmd|' /C calc'!A0"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(TEXT, min_size=3, max_size=3), max_size=6), st.sampled_from(["\t", ","]))
def test_any_text_gives_inert_cells_and_the_same_shape(rows, delimiter):
    text = cells.table_text(rows, delimiter=delimiter)
    assert text.count("\n") == len(rows)  # a line break inside a cell is no new row, for any reader
    for line in text.splitlines():
        assert not line.startswith(FORMULA[:4]) or _inert(line.split(delimiter)[0])
    back = _read(text, delimiter)
    assert [len(row) for row in back] == [3] * len(rows)
    assert all(_inert(cell) for row in back for cell in row)
    for row, read in zip(rows, back, strict=True):  # the apostrophe comes off again where no break was replaced
        assert [cells.restore(got) for got, cell in zip(read, row, strict=True) if not cells._BREAKS.search(cell)] \
            == [cell for cell in row if not cells._BREAKS.search(cell)]


NAME = TEXT.map(lambda t: cells._BREAKS.sub(" ", t).strip()).filter(bool)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(NAME, st.one_of(st.none(), NAME), TEXT), max_size=5))
def test_the_questions_table_is_inert_and_its_names_come_back(found):
    questions = [Question(column, level, text) for column, level, text in found]
    text = questions_table(questions)
    back = _read(text)
    assert [len(row) for row in back] == [4] * (len(questions) + 1)
    assert all(_inert(cell) for row in back for cell in row)
    # The lab fills the descriptions in and saves the table as it reads (apostrophes and all).
    filled = io.StringIO()
    rows = [back[0], *([*row[:2], "Said by the lab.", *row[3:]] for row in back[1:])]
    csv.writer(filled, delimiter="\t").writerows(rows)
    answers = read_answers(filled.getvalue())
    assert [(a.column, a.level) for a in answers] == [(q.column, q.level) for q in questions]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(NAME, st.tuples(TEXT, TEXT), min_size=1, max_size=4), TEXT)
def test_the_sidecar_spreadsheet_is_inert_and_keeps_its_shape(levels, description):
    sidecar = {"kind": {"Description": description, "Levels": {k: d for k, (d, _) in levels.items()},
                        "HED": {k: h or "Event" for k, (_, h) in levels.items()}}}
    text = sidecar_to_spreadsheet(sidecar)
    back = _read(text)
    assert len(back) == len(hed_to_df(sidecar)) + 1 and {len(row) for row in back} == {4}  # the header first
    assert text.count("\n") == len(back)
    assert all(_inert(cell) for row in back for cell in row)


@pytest.mark.django_db
def test_a_csv_export_cell_with_a_bare_cr_stays_in_its_row(user):
    make_session(user, description="fine\r=cmd|' /C calc'!A0", annotation="-2+3")
    text = "".join(exports.stream_csv(AnnotationSession.objects.all()))
    assert "\r" not in text.replace("\r\n", "")  # no bare CR, so no reader splits the row
    (row,) = csv.DictReader(io.StringIO(text))
    assert (row["description"], row["annotation"]) == ("fine =cmd|' /C calc'!A0", "'-2+3")
