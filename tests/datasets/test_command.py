"""manage.py annotate_dataset: every shared dataset with its HED removed ends with valid sidecars."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import DatasetProject
from tests.datasets.helpers import DATA, DATASETS

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("name", DATASETS)
def test_each_shared_dataset_gets_sidecars_that_validate_with_every_events_file(name, stripped, tmp_path, capsys):
    folder = stripped(name)
    out = tmp_path / "out"
    call_command("annotate_dataset", str(folder), "--out", str(out), "--json")  # SystemExit(1) unless all valid
    report = json.loads(capsys.readouterr().out)
    assert report["dataset_id"] and report["usage"]["llm_calls"] == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(p.name for p in folder.glob("*_events.json"))
    annotated = 0
    for task in report["tasks"]:
        assert task["levels_valid"] == task["levels_total"] > 0
        assert not [i for i in task["issues"] if i["severity"] == "error"]
        figures = task["quality"]  # composed as a curator would: every row one proper event, levels apart
        if figures["levels"]:
            assert figures["distinct_share"] >= 0.95, (task["task"], figures)
        if figures["rows_hed"]:
            assert figures["rows_ok"] >= 0.95 * figures["rows"], (task["task"], figures)
        sidecar = json.loads((out / task["sidecar"].rsplit("/", 1)[-1]).read_text())
        annotated += sum(isinstance(e, dict) and "HED" in e for e in sidecar.values())
    assert annotated >= 1


def test_bad_input_is_one_line_and_stores_nothing(tmp_path):
    bad = tmp_path / "sub-01_task-a_events.tsv"
    bad.write_bytes(b"onset\tduration\n1\t2\t3\n")
    with pytest.raises(CommandError, match=r"sub-01_task-a_events\.tsv.*line 2"):
        call_command("annotate_dataset", str(bad), "--out", str(tmp_path / "out"))
    with pytest.raises(CommandError, match="no such file"):
        call_command("annotate_dataset", str(tmp_path / "missing.zip"))
    with pytest.raises(CommandError, match="concurrency"):
        good = tmp_path / "sub-01_task-b_events.tsv"
        good.write_bytes(b"onset\ttrial_type\n1\tgo\n")
        call_command("annotate_dataset", str(good), "--concurrency", "0")
    assert not DatasetProject.objects.exists()


def test_an_invalid_result_exits_non_zero(tmp_path, settings, monkeypatch, capsys):
    """A level the annotator cannot make valid leaves the sidecar incomplete: exit 1, sidecar still written."""
    events = tmp_path / "sub-01_task-c_events.tsv"
    events.write_bytes(b"onset\ttrial_type\n1\tgo\n2\tstop\n")
    monkeypatch.setattr("annotations.datasets.services.levels_to_annotate", lambda project, **kw: [])
    with pytest.raises(SystemExit) as exit_info:
        call_command("annotate_dataset", str(events), "--out", str(tmp_path / "out"))
    assert exit_info.value.code == 1
    assert (tmp_path / "out" / "task-c_events.json").exists()
    assert "2 issue(s)" in capsys.readouterr().out


REAL = DATA.parent / "bids-real"


@pytest.mark.parametrize("name", ["ds005", "eeg_rishikesh"])
def test_a_real_dataset_without_hed_gets_proper_events_and_questions_for_what_is_not_said(name, tmp_path, capsys):
    """As a lab has it (no HED, no human descriptions): every row one proper event, levels apart, a question
    for each level whose meaning nobody gave; the answers, given back, leave no question and the figures hold."""
    out = tmp_path / "out"
    call_command("annotate_dataset", str(REAL / name), "--out", str(out), "--json",
                 "--questions", str(tmp_path / "questions.tsv"))
    task = json.loads(capsys.readouterr().out)["tasks"][0]
    figures = task["quality"]
    assert task["valid"] and figures["rows_hed"] >= 0.95 * figures["rows"]
    assert figures["rows_ok"] >= 0.90 * figures["rows"] and figures["distinct_share"] >= 0.95
    asked = [line.split("\t") for line in (tmp_path / "questions.tsv").read_text().splitlines()[1:]]
    assert len(asked) == task["open_questions"] + sum(1 for row in asked if not row[1]) > 0
    answers = tmp_path / "answers.tsv"  # the lab fills the table in
    answers.write_text("column\tlevel\tdescription\n" + "".join(
        f"{column}\t{level}\tThe participant presses button {i} to answer the question on the screen.\n"
        for i, (column, level, *_) in enumerate(asked)))
    call_command("annotate_dataset", str(REAL / name), "--out", str(tmp_path / "again"), "--json",
                 "--descriptions", str(answers))
    again = json.loads(capsys.readouterr().out)["tasks"][0]
    assert again["open_questions"] == 0 and again["valid"]
    assert again["quality"]["rows_ok"] >= 0.90 * again["quality"]["rows"]
    assert again["quality"]["distinct_share"] >= 0.95
