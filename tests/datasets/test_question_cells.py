"""``annotate_dataset --questions`` writes a table a spreadsheet program opens as text only: levels named like
formulas are quoted, and the table handed back with ``--descriptions`` still finds them."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db(transaction=True)

# A made-up lab whose marker column holds formula-like codes.
LEVELS = ['=HYPERLINK("http://x")', "+cmd", "@SUM(1)", "-2+3"]
EVENTS = "onset\tduration\tmarker\n" + "".join(f"{i}.0\t0\t{level}\n" for i, level in enumerate(LEVELS, 1))


def test_formula_like_levels_are_written_inert_and_found_again(tmp_path, capsys):
    events = tmp_path / "sub-01_task-odd_events.tsv"
    events.write_text(EVENTS)
    table = tmp_path / "questions.tsv"
    call_command("annotate_dataset", str(events), "--out", str(tmp_path / "out"), "--json", "--questions", str(table))
    capsys.readouterr()
    rows = list(csv.reader(io.StringIO(table.read_text()), delimiter="\t"))
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for cell in row)
    asked = {row[1] for row in rows[1:] if row[0] == "marker" and row[1]}  # the column itself is asked too
    assert asked == {"'" + level for level in LEVELS}
    answers = tmp_path / "answers.tsv"  # the lab fills the table in and saves it as it reads
    out = io.StringIO()
    csv.writer(out, delimiter="\t").writerows([rows[0][:3], *([row[0], row[1], f"Made-up code {i} on the screen."]
                                                              for i, row in enumerate(rows[1:]))])
    answers.write_text(out.getvalue())
    call_command("annotate_dataset", str(events), "--out", str(tmp_path / "again"), "--json",
                 "--descriptions", str(answers))
    again = json.loads(capsys.readouterr().out)["tasks"][0]
    assert again["open_questions"] == 0
