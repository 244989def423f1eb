"""``manage.py evaluate ... --model``: stored evaluation runs, one JSON object per model, and the offline
annotator's F1 equal to the referee's (``shared/eval/score_hed.py``, run as a subprocess) on the same
predictions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import AnnotationSession, EvaluationBatch, EvaluationSet
from tests.evaluation.conftest import by_model

pytestmark = pytest.mark.django_db(transaction=True)

REFEREE = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "score_hed.py"
_SUMMARY = re.compile(r"^F1 (\S+) P (\S+) R (\S+) valid (\S+) n (\d+)$", re.MULTILINE)


def referee(gold: Path, predictions: Path, *extra: str) -> dict[str, str]:
    if not REFEREE.is_file():
        pytest.fail(f"the referee is missing: {REFEREE}")
    done = subprocess.run([sys.executable, str(REFEREE), str(gold), str(predictions), *extra], capture_output=True,
                          text=True, timeout=300, check=True)
    f1, precision, recall, _, n = _SUMMARY.search(done.stdout).groups()
    return {"f1": f1, "precision": precision, "recall": recall, "n": n}


def evaluate(*args: str) -> list[dict]:
    out = StringIO()
    call_command("evaluate", *args, stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_the_offline_f1_of_evaluate_json_is_the_referees(gold_file, tmp_path):
    predictions = tmp_path / "pred.csv"
    [found] = evaluate(str(gold_file), "--model", "offline", "--json", "--out", str(predictions))
    assert found["model"] == "offline annotator" and found["runs"] == 4 and found["status"] == "done"

    by_default = referee(gold_file, predictions)  # rows whose gold uses definitions left out
    mine = found["tags_without_definition_rows"]
    assert (f"{mine['f1']:.3f}", f"{mine['precision']:.3f}", f"{mine['recall']:.3f}", str(mine["n"])) == (
        by_default["f1"], by_default["precision"], by_default["recall"], by_default["n"])
    every_row = referee(gold_file, predictions, "--all")  # definitions kept, as the table's F1
    mine = found["tags"]
    assert (f"{mine['f1']:.3f}", str(mine["n"])) == (every_row["f1"], every_row["n"])

    # The predictions are the stored evaluation runs' annotations, one per row of the set.
    rows = predictions.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "id,prediction" and [r.split(",")[0] for r in rows[1:]] == ["g1", "g2", "g3", "g4"]
    runs = AnnotationSession.objects.filter(evaluation_batch_id=found["evaluation"])
    assert runs.count() == 4 and all(r.machine_annotation for r in runs)


def test_one_object_per_model_with_their_figures(endpoints, gold_file, user):
    found = by_model(evaluate(str(gold_file), "--model", "alpha", "--model", "beta", "--user", user.username,
                              "--json"))
    alpha, beta = found["alpha"], found["beta"]
    assert (alpha["choice"], beta["choice"]) == ("alpha", "beta")
    assert (alpha["first_attempt_valid"], beta["first_attempt_valid"]) == (1.0, 0.0)
    assert (alpha["mean_attempts"], beta["mean_attempts"]) == (1.25, 2.0)
    assert alpha["tags"]["f1"] == pytest.approx(2 * 0.75 / 1.75, abs=1e-6)
    assert beta["tags"]["f1"] == pytest.approx(0.3, abs=1e-6)
    assert (alpha["tokens"]["total"], beta["tokens"]["total"]) == (990, 1760)
    assert alpha["faithful"] == {"n": 4, "share": 0.75}
    assert alpha["configuration"]["constrained"] is False and alpha["configuration"]["schema_version"] == "8.4.0"
    # One set, evaluated twice; the runs are the user's evaluation runs.
    assert EvaluationSet.objects.count() == 1 and EvaluationBatch.objects.count() == 2
    assert AnnotationSession.objects.filter(user=user, evaluation_batch__isnull=False).count() == 8


def test_the_same_file_again_is_the_same_set(gold_file):
    evaluate(str(gold_file), "--model", "offline", "--json")
    evaluate(str(gold_file), "--model", "offline", "--json")
    assert EvaluationSet.objects.count() == 1 and EvaluationBatch.objects.count() == 2


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "nope"], "--model nope: 'nope' is not a model you have configured; choose one of offline"),
    (["--model", "offline", "--schema", "7.0.0"], "--schema 7.0.0:"),
    (["--model", "offline", "--model", "offline", "--out", "x.csv"], "--out writes one model's predictions"),
    (["--reviewed", "all", "--model", "offline"], "give either a gold CSV or --reviewed"),
])
def test_bad_requests_say_why_and_store_no_evaluation(gold_file, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("evaluate", str(gold_file), *args, stdout=StringIO(), stderr=StringIO())
    assert not EvaluationSet.objects.exists() and not AnnotationSession.objects.exists()


def test_a_csv_without_hed_and_no_reviewed_annotations_are_refused(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,description\n1,A tone.\n", encoding="utf-8")
    with pytest.raises(CommandError, match="needs the columns description and hed"):
        call_command("evaluate", str(bad), "--model", "offline", stdout=StringIO(), stderr=StringIO())
    with pytest.raises(CommandError, match="No reviewed annotation"):
        call_command("evaluate", "--reviewed", "all", "--model", "offline", stdout=StringIO(), stderr=StringIO())
    assert not EvaluationSet.objects.exists()
