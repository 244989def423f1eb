"""A descriptions table costs what its limits allow and no more: a cell past csv's own field limit is refused
naming the line (it was ``_csv.Error``, a 500), on the page's upload and the command line's ``--descriptions``,
and the command line reads no further than the table limit (``--descriptions /dev/zero`` never ended)."""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import AnnotationSession, DatasetLevel, DatasetProject
from bidsdata.questions import MAX_TABLE_BYTES, MAX_TABLE_CELL, AnswersError, read_answers
from tests.datasets.lab import lab_folder, lab_project, level

HUGE_CELL = "x" * 131_073  # one past csv's default field_size_limit
HEADER = "column\tlevel\tdescription\n"


@pytest.mark.parametrize("table", [
    HEADER + f"value\t6\t{HUGE_CELL}\n",
    HEADER + f'value\t6\t"{HUGE_CELL}\n',  # an open quote runs to the end
    f"column\tlevel\t{HUGE_CELL}\n",
])
def test_a_cell_past_the_csv_field_limit_is_refused_naming_the_line(table: str) -> None:
    with pytest.raises(AnswersError, match=rf"line \d+: a cell is longer than {MAX_TABLE_CELL} characters"):
        read_answers(table)


@pytest.mark.django_db
def test_the_page_refuses_an_uploaded_table_with_a_huge_cell_and_stores_nothing(client, user) -> None:
    project = lab_project(user)
    client.force_login(user)
    upload = SimpleUploadedFile("answers.tsv", (HEADER + f"value\t6\t{HUGE_CELL}\n").encode())
    page = client.post(f"/datasets/{project.pk}/questions/table/", {"file": upload}, follow=True)
    assert page.status_code == 200
    assert f"a cell is longer than {MAX_TABLE_CELL} characters" in html.unescape(page.content.decode())
    assert level(project, "value", "6").description == "Trigger 6"
    assert not AnnotationSession.objects.exists()





def _annotate(tmp_path: Path, table: str | os.PathLike[str]) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("annotate_dataset", str(lab_folder(tmp_path)), "--descriptions", str(table),
                     "--out", str(tmp_path / "out"))
    message = str(refused.value)
    assert "\n" not in message
    return message


@pytest.mark.django_db
def test_the_command_line_refuses_a_huge_cell_in_one_line(tmp_path: Path) -> None:
    table = tmp_path / "answers.tsv"
    table.write_text(HEADER + f"value\t6\t{HUGE_CELL}\n", encoding="utf-8")
    assert f"a cell is longer than {MAX_TABLE_CELL} characters" in _annotate(tmp_path, table)
    assert not DatasetProject.objects.exists()


@pytest.mark.django_db
def test_the_command_line_refuses_a_table_over_the_byte_limit(tmp_path: Path) -> None:
    table = tmp_path / "answers.tsv"
    row = f"value\t6\t{'A tone plays. ' * 100}\n"  # every cell within its limit: only the size is at fault
    table.write_text(HEADER + row * (MAX_TABLE_BYTES // len(row) + 1), encoding="utf-8")
    assert f"over {MAX_TABLE_BYTES:,} bytes" in _annotate(tmp_path, table)
    assert not DatasetLevel.objects.exists()


@pytest.mark.django_db
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_the_command_line_reads_dev_zero_no_further_than_the_limit(tmp_path: Path) -> None:
    assert f"over {MAX_TABLE_BYTES:,} bytes" in _annotate(tmp_path, "/dev/zero")
    assert not DatasetProject.objects.exists()
