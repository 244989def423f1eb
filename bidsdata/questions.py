"""Questions back to the lab: what the events columns and their levels mean, where nobody said.

A categorical level whose description was made up from the names (``needs_description``), or whose
description only restates its name or code ("Tone high" for ``tone_high``; "trigger 6" or "phase 6"
for the code ``6`` of column ``phase``), leaves the annotator guessing. Each such level gets one
question worded for the lab; so does a categorical column without a description of its own, and a value
column whose values are free text no ``#`` template can carry (a comma in a marker string): its rows would
get no HED from it while the sidecar still says valid, so the lab is asked what it records. A question says what is
unknown (the meaning of a value) and where, never a role the data does not show ("trigger" for an outcome code);
a column of file names is a value, not a question per file. The answers
come back as descriptions, in the same table form the questions go out in (:func:`questions_table`,
:func:`read_answers`), so a lab can fill the table in a spreadsheet and hand it back.

Pure Python: no Django, no hedtools.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from bidsdata import cells
from bidsdata.inventory import ColumnInventory, TaskInventory, humanize, is_number
from bidsdata.markers import is_file_name

# Words that add nothing to a name: "the phase", "Trigger 6", "Level: tone high" say no more than the name.
_ARTICLES = frozenset({"a", "an", "the", "of", "in", "at", "for", "is", "this", "that"})
_FILLER = _ARTICLES | frozenset({"level", "value", "values", "code", "codes", "trigger", "triggers", "marker",
                                 "column", "condition", "type", "event", "events", "label", "name", "number",
                                 "id", "category", "n", "no", "nr"})
_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_NO_TEMPLATE = re.compile(r"[,\[\]{}]")  # HED values hold no commas, brackets or braces (as assembly leaves out)
TABLE_HEADER = ("column", "level", "description", "question")
MAX_TABLE_ROWS = 20_000
MAX_TABLE_CELL = 2000
MAX_TABLE_BYTES = 2_000_000
"""The largest descriptions table read (the page's upload, the command line's ``--descriptions``): a full
table of :data:`MAX_TABLE_ROWS` rows of short cells is well under it."""


@dataclass(frozen=True)
class Question:
    """A question for the lab about a column (``level`` is ``None``) or one of its levels."""

    column: str
    level: str | None
    text: str


@dataclass(frozen=True)
class Answer:
    """A description the lab gave: for a level, or (``level`` ``None``) for the column itself."""

    column: str
    level: str | None
    description: str


class AnswersError(ValueError):
    """A descriptions table that cannot be read; the message names the line and the problem."""


def _words(text: str) -> set[str]:
    found = set()
    for word in _WORD.findall(humanize(text)):
        if word[0].isdigit():
            number = float(word)
            word = str(int(number)) if number.is_integer() else str(number)
        found.add(word)
    return found


def restates(description: str, *names: str, filler: frozenset[str] = _FILLER) -> bool:
    """Whether *description* says nothing but *names* (and *filler* words): it tells the annotator nothing."""
    said = _words(description) - filler
    for name in names:
        said -= _words(name)
    return not said


def level_needs_answer(column: str, value: str, description: str, needs_description: bool) -> bool:
    """Whether a level's meaning is not given: its description is made up, empty, or restates its name.

    A code (a number) is restated with its column's name too ("phase 6"); a named level is not, so "The
    left hand." for ``left`` of column ``hand`` says what the level is.
    """
    names = (column, value) if is_number(value) else (value,)
    return needs_description or restates(description or "", *names)


def column_needs_answer(column: ColumnInventory) -> bool:
    """Whether a categorical column lacks a description of its own."""
    return column.kind == "categorical" and (
        column.needs_description or restates(column.description or "", column.name, filler=_ARTICLES))


def untemplated_example(column: ColumnInventory) -> str | None:
    """A sample value of a value column that no template can carry (so the column gives its rows no HED)."""
    if column.kind != "value":
        return None
    return next((v for v in column.samples if _NO_TEMPLATE.search(v)), None)


MAX_NAMED_CODES = 8  # the codes a question lists beside the one asked about


def level_question(column: str, value: str, codes: Iterable[str] = ()) -> str:
    """The question about one level, as a lab would read it: what is unknown (the meaning of the value) and the
    column it is in, never a role the data does not show (a code 0/1 may be an accuracy, not a trigger)."""
    if is_number(value):
        # A code is read beside its column's other codes: "1 of 0, 1" is a different question from "1 of 1..8".
        others = [c for c in dict.fromkeys(codes) if c != value][:MAX_NAMED_CODES]
        among = f" (its other codes: {', '.join(others)})" if others else ""
        return f"What does `{value}` mean in column `{column}`{among}?"
    return f"What does `{value}` mean in column `{column}`?"


def file_name_column(column: ColumnInventory) -> bool:
    """Whether a categorical column holds only file names: a value column (``Pathname/#``), never one question
    per file."""
    values = [level.value for level in column.levels if level.value.strip()]
    return bool(values) and all(is_file_name(v) for v in values)


def column_question(column: str, example: str | None = None) -> str:
    if example is not None:
        return (f"What does column `{column}` record? Its values are free text no HED template can carry (such as "
                f"`{example}`), so its rows get no HED from it: give it a template that carries them, or skip it.")
    return f"What does column `{column}` record? Is it a condition of the experiment?"


def open_questions(task: TaskInventory) -> list[Question]:
    """The task's open questions, column by column: the column's own first, then its levels'."""
    found: list[Question] = []
    for column in task.columns:
        if (example := untemplated_example(column)) is not None:
            found.append(Question(column.name, None, column_question(column.name, example)))
        if column.kind != "categorical" or file_name_column(column):
            continue
        if column_needs_answer(column):
            found.append(Question(column.name, None, column_question(column.name)))
        codes = [level.value for level in column.levels]
        for level in column.levels:
            if level_needs_answer(column.name, level.value, level.description, level.needs_description):
                found.append(Question(column.name, level.value, level_question(column.name, level.value, codes)))
    return found


def left_out_question(column: str, level: str | None, reason: str, fix: str = "") -> str:
    """The question about a level (or, *level* None, a value column's template) left out of the sidecar because
    its HED broke validation; where the lab's data must change for it to keep HED, the fix, said as such."""
    what = f"`{level}` in column `{column}`" if level is not None else f"column `{column}`"
    if fix:
        return f"Please fix the events files: {fix}. Until then {what} has no HED."
    reason = reason.rstrip(". ")
    if level is None:
        return f"Column `{column}` gets no HED template ({reason}). What do its values record?"
    return f"{what[0].upper()}{what[1:]} gets no HED ({reason}). What does it mean, and what sets it apart?"


def left_out_questions(notes: Iterable[object]) -> list[Question]:
    """One question per level or template left out of a sidecar (:class:`bidsdata.assembly.DroppedTags` notes:
    ``column``, ``level``, ``reason``, ``fix``), those that only repeated another column aside (``redundant``:
    their events keep that column's HED)."""
    found: dict[tuple[str, str | None], Question] = {}
    for note in notes:
        column, level = getattr(note, "column", ""), getattr(note, "level", None)
        if getattr(note, "redundant", False) or not column or (column, level) in found:
            continue
        found[(column, level)] = Question(column, level, left_out_question(
            column, level, str(getattr(note, "reason", "")), str(getattr(note, "fix", ""))))
    return list(found.values())


# --- the table a lab fills in ------------------------------------------------------------------------


def questions_table(questions: Iterable[Question]) -> str:
    """A TSV with a header: column, level (empty for the column), description (for the lab to fill), question."""
    # Every cell inert (bidsdata.cells): a level named "=HYPERLINK(...)" is text when the lab opens the table.
    return cells.table_text([TABLE_HEADER, *([q.column, q.level if q.level is not None else "", "", q.text]
                                             for q in questions)])


def decode_table(data: bytes) -> str:
    """A descriptions table's bytes as text: at most :data:`MAX_TABLE_BYTES` (read no more than one byte past
    it, so a device that never ends, ``/dev/zero``, costs no more), UTF-8 with or without a BOM.

    Raises:
        AnswersError: too large, or not UTF-8.
    """
    if len(data) > MAX_TABLE_BYTES:
        raise AnswersError(f"the table is over {MAX_TABLE_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AnswersError("the table is not UTF-8 text: save it as a UTF-8 TSV") from None


def _rows(reader: Any) -> Iterator[list[str]]:
    """The reader's rows, its own errors (a cell past csv's field limit of 131,072 characters, which no cell
    under :data:`MAX_TABLE_CELL` reaches) as an :class:`AnswersError` naming the line."""
    try:
        yield from reader
    except csv.Error as exc:
        problem = (f"a cell is longer than {MAX_TABLE_CELL} characters" if "field larger" in str(exc)
                   else f"not a readable TSV ({exc})")
        raise AnswersError(f"line {reader.line_num}: {problem}") from None


def read_answers(text: str) -> list[Answer]:
    """The filled rows of a descriptions table (header ``column``, ``level``, ``description``; other columns,
    such as ``question``, are ignored). A row with an empty description is a question not answered yet.

    Raises:
        AnswersError: no such header, a row without a column name, a cell too long, or too many rows.
    """
    if "\x00" in text:
        raise AnswersError("the descriptions table holds a NUL character")
    reader = csv.reader(io.StringIO(text.replace("\r\n", "\n").replace("\r", "\n")), delimiter="\t")
    rows = _rows(reader)
    header = [h.strip().lower() for h in next(rows, [])]
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0][1:]
    missing = [name for name in TABLE_HEADER[:3] if name not in header]
    if missing:
        raise AnswersError(f"the descriptions table needs a header row with column, level and description "
                           f"(missing: {', '.join(missing)})")
    where = {name: header.index(name) for name in TABLE_HEADER[:3]}
    answers: list[Answer] = []
    for number, row in enumerate(rows, start=2):
        if number > MAX_TABLE_ROWS:
            raise AnswersError(f"the descriptions table has more than {MAX_TABLE_ROWS:,} rows")
        if not any(cell.strip() for cell in row):
            continue
        # The apostrophe questions_table put before a formula-like name comes off, so the name is found again.
        found = {name: cells.restore(row[i].strip() if i < len(row) else "") for name, i in where.items()}
        if any(len(cell) > MAX_TABLE_CELL for cell in found.values()):
            raise AnswersError(f"line {number}: a cell is longer than {MAX_TABLE_CELL} characters")
        if not found["column"]:
            raise AnswersError(f"line {number}: no column name")
        if not found["description"]:
            continue
        answers.append(Answer(found["column"], found["level"] or None, " ".join(found["description"].split())))
    return answers
