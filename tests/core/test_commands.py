"""The management commands, as a user runs them."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from agents.validation import validate_hed
from annotations.models import AgentStepRecord, AnnotationSession, Iteration

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
ACCEPTANCE = "A red circle appears on the left side of the screen and the participant presses a button."


def run(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command(*args, stdout=out, stderr=StringIO())
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_annotate_json_succeeds_and_is_stored() -> None:
    code, out = run("annotate", ACCEPTANCE, "--json")
    data = json.loads(out)
    assert code == 0
    assert data["status"] == "succeeded" and data["is_valid"] is True
    assert not [i for i in validate_hed(data["annotation"], "8.4.0") if i.is_error]
    assert {"session_id", "is_faithful", "schema_version", "iterations", "usage"} <= set(data)
    assert data["usage"] == {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    assert data["iterations"][0]["number"] == 1 and data["iterations"][0]["errors"] == []
    session = AnnotationSession.objects.get(pk=data["session_id"])
    assert session.final_annotation == data["annotation"]
    assert Iteration.objects.filter(session=session).count() == len(data["iterations"])
    assert AgentStepRecord.objects.filter(session=session).count() >= 3


def test_annotate_options_reach_the_run() -> None:
    _, out = run("annotate", "A 500 Hz tone is played.", "--json", "--schema", "8.2.0", "--assess",
                    "--no-extend", "--max-attempts", "2")
    data = json.loads(out)
    session = AnnotationSession.objects.get(pk=data["session_id"])
    assert data["schema_version"] == "8.2.0" == session.schema_version
    assert session.options["run_assessment"] and session.options["no_extend"]
    assert session.options["max_validation_attempts"] == 2
    assert session.is_complete is not None  # the assessment ran


@pytest.mark.parametrize(("args", "message"), [
    (["   "], "Description is empty."),
    (["x" * 5001], "limit is 5000"),
    (["A tone.", "--schema", "9.0.0"], "Unknown HED schema version '9.0.0'"),
])
def test_annotate_bad_input(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("annotate", *args, stdout=StringIO())
    assert AnnotationSession.objects.count() == 0


def test_validate_exit_codes() -> None:
    code, out = run("validate", "Sensory-event, (Red, Circle)")
    assert code == 0 and "valid" in out
    code, out = run("validate", "Sensory-event, Blorp-tag")
    assert code == 1 and "TAG_INVALID" in out and "hint:" in out


def test_evaluate_writes_predictions(tmp_path: Path) -> None:
    gold = tmp_path / "gold.csv"
    gold.write_text("id,description\nr1,A red circle appears.\nr2,The volunteer taps the space bar.\n",
                    encoding="utf-8")
    out = tmp_path / "pred.csv"
    code, _ = run("evaluate", str(gold), "--out", str(out))
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert code == 0 and [r["id"] for r in rows] == ["r1", "r2"]
    assert all(r["prediction"] for r in rows)


def test_evaluate_scores_per_dataset_macro_and_deduplicated(tmp_path: Path) -> None:
    gold = tmp_path / "gold.csv"
    with gold.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "description", "hed", "dataset"])
        writer.writerow(["a1", "A red circle appears.", "Sensory-event, (Red, Circle)", "dsA"])
        writer.writerow(["a2", "a red circle appears", "Sensory-event, (Red, Circle)", "dsB"])  # same words
        writer.writerow(["b1", "The volunteer taps the space bar.", "Agent-action, (Press, Keyboard-key)", "dsB"])
        writer.writerow(["d1", "A face.", "Def/Face-cond", "dsB"])  # depends on a definition: not scored
    code, out = run("evaluate", str(gold), "--out", str(tmp_path / "pred.csv"))
    assert code == 0
    lines = out.splitlines()
    assert any(line.startswith("dsA ") for line in lines) and any(line.startswith("dsB ") for line in lines)
    assert any(line.startswith("micro F1") and "3 rows" in line for line in lines)
    assert any(line.startswith("de-duplicated F1") and "2 distinct descriptions" in line for line in lines)
    assert any(line.startswith("macro F1 over datasets") and "(2 datasets)" in line for line in lines)
    assert "valid 3/3" in out


def test_evaluate_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        call_command("evaluate", str(tmp_path / "nope.csv"), "--out", str(tmp_path / "p.csv"))


def test_cli_bad_input_is_one_line_and_non_zero() -> None:
    proc = subprocess.run([sys.executable, "manage.py", "annotate", ""], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines == ["CommandError: Description is empty."]
