"""manage.py annotate_dataset on small made-up input: bad input refused in one line, an invalid result exits 1.

The quality thresholds on the shared datasets are benchmarks/shared_datasets.py; the --questions/--descriptions
round trip is tests/datasets/test_questions_api.py.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import DatasetProject

pytestmark = pytest.mark.django_db(transaction=True)


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
