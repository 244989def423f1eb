"""hed_search, design_matrix and hed_summary: hedtools' answers on a BIDS folder, a zip or a project; one line and a
non-zero exit for what cannot be done, never a traceback."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.bidsdata.usage.hedtools_loop import MADE_UP_ROWS, bare_events, bare_factors, bare_search, events_text
from tests.support.datasets import zip_folder
from tests.usage.conftest import stored_sidecar

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ["Sensory-event", "Participant-response", "Def/Go-cond && ~Red", "@Agent-action"]


def _run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _expected(folder, queries, **options):
    found = bare_search(folder, "demo", queries, **options)
    return {q: sum(row[i] for rows in found.values() for row in rows) for i, q in enumerate(queries)}, \
        sum(len(rows) for rows in found.values())


def test_hed_search_json_gives_hedtools_counts(made_up):
    out, _ = _run("hed_search", str(made_up), *QUERIES, "--json")
    report = json.loads(out)
    matches, rows = _expected(made_up, QUERIES)
    assert report["schema"] == "8.4.0"
    assert report["queries"] == QUERIES
    assert report["tasks"] == {"demo": {"files": 3, "rows": rows, "matches": matches, "refused": {}}}
    out, _ = _run("hed_search", str(made_up), *QUERIES, "--json", "--no-context", "--expand-defs",
                  "--remove-types", "Condition-variable,Task")
    matches, _ = _expected(made_up, QUERIES, include_context=False, replace_defs=True,
                           remove_types=("Condition-variable", "Task"))
    assert json.loads(out)["tasks"]["demo"]["matches"] == matches


def test_hed_search_out_writes_every_matching_row(made_up, tmp_path):
    target = tmp_path / "rows.tsv"
    out, _ = _run("hed_search", str(made_up), *QUERIES[:2], "--out", str(target))
    assert "task demo: 3 files" in out
    with target.open() as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["file", "row", "onset", *QUERIES[:2]]
    expected = []
    for path, manager, _objects in bare_events(made_up, "demo"):
        flags = bare_search(made_up, "demo", QUERIES[:2])[path]
        for index, row in enumerate(flags):
            if any(row):
                expected.append([path, str(int(manager.original_index[index])), f"{float(manager.onsets[index]):.10g}",
                                 *map(str, row)])
    assert rows[1:] == expected


def test_a_zip_searches_as_its_folder(made_up, tmp_path):
    packed = zip_folder(made_up, tmp_path / "made_up.zip", top="made_up")
    folder, _ = _run("hed_search", str(made_up), "Event", "--json")
    zipped, _ = _run("hed_search", str(packed), "Event", "--json")
    assert json.loads(zipped)["tasks"] == json.loads(folder)["tasks"]


@pytest.mark.parametrize(("args", "message"), [
    (["Sensory-event &&"],
     "query 1 'Sensory-event &&' cannot be parsed at character 17: Parse error in get next token"),
    (["Event", "(Red"], "query 2 '(Red' cannot be parsed at character 5: Parse error: Missing closing paren"),
    (["Event", "--task", "other"], "no task 'other'; this dataset has: demo"),
])
def test_what_cannot_be_done_is_one_line(made_up, args, message):
    with pytest.raises(CommandError) as refused:
        _run("hed_search", str(made_up), *args)
    assert str(refused.value) == message


def test_not_a_dataset_is_one_line(tmp_path):
    with pytest.raises(CommandError, match="not a BIDS folder, a zip of one, or a dataset project's id"):
        _run("hed_search", str(tmp_path / "nowhere"), "Event")


def test_a_malformed_query_exits_1_with_one_line_and_no_traceback(made_up):
    done = subprocess.run([sys.executable, "manage.py", "hed_search", str(made_up), "{Event && Red"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1].endswith("cannot be parsed at character 14: Parse error: Missing closing curly bracket")
    assert "Traceback" not in done.stderr


def test_a_refused_events_file_is_named_and_the_rest_searched(made_up):
    backwards = made_up / "sub-02" / "eeg" / "sub-02_task-demo_run-1_events.tsv"
    backwards.parent.mkdir(parents=True)
    backwards.write_text(events_text(list(reversed(MADE_UP_ROWS))))
    out, err = _run("hed_search", str(made_up), "Sensory-event", "--json")
    task = json.loads(out)["tasks"]["demo"]
    assert list(task["refused"]) == ["sub-02/eeg/sub-02_task-demo_run-1_events.tsv"]
    assert "sub-02/eeg/sub-02_task-demo_run-1_events.tsv: hedtools cannot read it:" in err
    assert task["matches"]["Sensory-event"] > 0


def test_design_matrix_writes_get_factor_vectors_per_events_file(made_up, tmp_path):
    out, _ = _run("design_matrix", str(made_up), "--task", "demo", "--out", str(tmp_path / "design"))
    assert "task demo: 3 design matrices" in out
    expected = bare_factors(made_up, "demo", "Condition-variable", "one-hot")
    for path, frame in expected.items():
        name = path.rsplit("/", 1)[-1].replace("_events.tsv", "_design.tsv")
        with (tmp_path / "design" / name).open() as handle:
            table = list(csv.reader(handle, delimiter="\t"))
        assert table[0] == ["row", "onset", *frame.columns]
        assert [row[2:] for row in table[1:]] == [[str(v) for v in line] for line in frame.values.tolist()]
    summary = json.loads((tmp_path / "design" / "task-demo_condition-variable_summary.json").read_text())
    assert set(summary["details"]) == {"trial-kind"}
    assert "trial-kind = go-cond" in out


def test_design_matrix_categorical_and_an_unknown_type(made_up, tmp_path):
    _run("design_matrix", str(made_up), "--task", "demo", "--out", str(tmp_path / "c"), "--encoding", "categorical")
    header = (tmp_path / "c" / "sub-01_task-demo_run-1_design.tsv").read_text().splitlines()[0]
    assert header == "row\tonset\ttrial-kind"
    with pytest.raises(CommandError):
        _run("design_matrix", str(made_up), "--task", "demo", "--out", str(tmp_path / "d"), "--type", "Conditions")


def test_hed_summary_json(made_up):
    out, _ = _run("hed_summary", str(made_up), "--json")
    task = json.loads(out)["tasks"]["demo"]
    assert task["files"] == 3
    assert [g["title"] for g in task["groups"]][:2] == ["Sensory events", "Agent actions"]
    assert {t["tag"] for g in task["groups"] for t in g["tags"]} >= {"Sensory-event", "Press", "Square"}
    assert {(f["factor"], f["level"]) for f in task["factors"]} == {("trial-kind", "go-cond"),
                                                                     ("trial-kind", "halt-cond")}
    text, _ = _run("hed_summary", str(made_up))
    assert text.startswith("task demo: 3 files")


@pytest.mark.django_db
def test_a_project_is_searched_with_its_stored_sidecar(project, made_up, tmp_path):
    (tmp_path / "stored").mkdir()
    for path in made_up.rglob("*"):
        if path.is_file() and path.name != "task-demo_events.json":
            target = tmp_path / "stored" / path.relative_to(made_up)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (tmp_path / "stored" / "task-demo_events.json").write_text(json.dumps(stored_sidecar(project)))
    out, _ = _run("hed_search", str(project.pk), *QUERIES, "--json")
    matches, _ = _expected(tmp_path / "stored", QUERIES)
    assert json.loads(out)["tasks"]["demo"]["matches"] == matches
