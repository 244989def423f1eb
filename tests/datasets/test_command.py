"""manage.py annotate_dataset: every shared dataset with its HED removed ends with valid sidecars."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import DatasetProject
from tests.datasets.helpers import DATASETS

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
