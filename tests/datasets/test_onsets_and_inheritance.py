"""Rows at one onset (hedtools' one event) and sidecars below the root (BIDS inheritance): the sidecar the job
writes validates with every events file and its HED takes effect in each (issue 26, items 4 and 5).

Every name, level and HED here is made up.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from bidsdata.archive import read_uploads
from bidsdata.composition.merged import without_onset_repeats
from bidsdata.composition.valid import valid_composition
from bidsdata.inheritance import applies, effective_sidecar, lower_sidecars
from bidsdata.inventory import build_inventory
from bidsdata.sidecar import build_sidecar, validate_sidecar, write_dataset_zip

VERSION = "8.3.0"


def _errors(sidecar: dict[str, Any], events: dict[str, str]) -> list[Any]:
    return [i for i in validate_sidecar(sidecar, events, VERSION, workers=1) if i.severity == "error"]


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def _composed(text: str) -> tuple[Any, Any, dict[str, str]]:
    files = read_uploads([("sub-01_task-t_events.tsv", text.encode())])
    task = build_inventory(files).tasks[0]
    events = {p: files.texts[p] for p in task.events_files}
    chosen = {c.name: {lv.value: f"Sensory-event, Visual-presentation, (Label/{c.name}-{_label(lv.value)})"
                       for lv in c.levels} for c in task.columns if c.kind == "categorical"}

    def errors(composition: Any) -> list[Any]:
        built = build_sidecar(task, composition.annotations, keep_existing_hed=False)
        return _errors(json.loads(json.dumps(composition.apply(built.sidecar))), events)

    return valid_composition(task, chosen, events, VERSION, errors), errors, events


def test_a_level_nested_rows_repeat_at_one_onset_is_left_out_and_the_sidecar_validates():
    # The composer nests the other columns into the first one's event; where that event's level is left out for
    # repeating at onset 3, the nested levels come back to the top level and would repeat there in turn.
    text = ("onset\tfirst\tsecond\tthird\n3.000\tvop\tzad\t1.000\n3.000\tkel\t2\tmib\n\tdor\tdor\t1.000\n"
            "3.000\t2\tfen\tMIB\n3\tfen\tn/a\t2\n3.000\tkel\t2\tmib\n")
    composition, errors, _ = _composed(text)
    assert errors(composition) == []
    left = {(n.column, n.level): n for n in composition.notes}
    assert ("second", "2") in left and "one onset" in left[("second", "2")].reason
    # Rows 3 and 7 are the same event twice: the report is the lab's fix, naming both rows.
    assert "remove one of them" in left[("second", "2")].fix and "rows 3 and 7" in left[("second", "2")].fix
    assert "fen" in composition.annotations["second"]  # levels that repeat nothing keep their HED


def test_two_levels_at_one_onset_that_open_alike_become_groups_and_keep_their_hed():
    events = {"e.tsv": "onset\tkind\n1\tvop\n1\tzad\n2\tvop\n"}
    annotations = {"kind": {"vop": "Sensory-event, Visual-presentation, Red",
                            "zad": "Sensory-event, Visual-presentation, Blue"}}
    assert _errors({"kind": {"HED": annotations["kind"]}}, events)  # hedtools refuses the merged event at 1
    settled, notes = without_onset_repeats(annotations, events)
    assert notes == []
    assert settled["kind"]["vop"] == annotations["kind"]["vop"]
    assert settled["kind"]["zad"] == "(Sensory-event, Visual-presentation, Blue)"
    assert _errors({"kind": {"HED": settled["kind"]}}, events) == []


def test_a_template_value_twice_at_one_onset_and_an_onset_group_are_never_grouped():
    events = {"e.tsv": "onset\tkind\tcount\n1\tvop\t4\n1\tzad\t5\n"}
    annotations = {"kind": {"vop": "(Def/Blip, Onset)", "zad": "(Def/Blip, Onset)"}}
    settled, notes = without_onset_repeats(annotations, events)
    assert list(settled["kind"]) == ["vop"]  # an Onset group must stay at the top level: left out, not grouped
    assert [(n.column, n.level, n.redundant) for n in notes] == [("kind", "zad", True)]


def _dataset() -> list[tuple[str, bytes]]:
    return [("sub-01/sub-01_task-t_events.tsv", b"onset\tkind\n1\tvop\n2\tzad\n"),
            ("sub-02/sub-02_task-t_events.tsv", b"onset\tkind\n1\tzad\n"),
            ("task-t_events.json", json.dumps({"kind": {"Description": "What was shown."}}).encode()),
            # sub-01's own sidecar redefines the column: BIDS reads its key there, not the root's.
            ("sub-01/sub-01_task-t_events.json", json.dumps({
                "kind": {"Description": "Shown to this subject.", "Levels": {"vop": "A made-up shape."},
                         "HED": {"vop": "Blurb-tag-xyz"}},
                "extra": {"Description": "Kept as it is."}}).encode())]


def test_a_lower_sidecar_that_redefines_a_column_gets_the_written_hed():
    files = read_uploads(_dataset())
    task = build_inventory(files, ignore_existing_hed=True).tasks[0]
    written = build_sidecar(task, {"kind": {"vop": "Sensory-event, Red", "zad": "Sensory-event, Blue"}}).sidecar
    lower = lower_sidecars(files, {task.sidecar_name: written}, {task.sidecar_name: task.events_files})
    assert list(lower) == ["sub-01/sub-01_task-t_events.json"]
    rewritten = lower["sub-01/sub-01_task-t_events.json"]
    assert rewritten["kind"]["HED"] == written["kind"]["HED"]
    assert rewritten["kind"]["Description"] == "Shown to this subject."  # only the HED is the job's
    assert rewritten["extra"] == {"Description": "Kept as it is."}
    every = {**{p: files.json(p) for p in files.sidecar_files()}, **lower, task.sidecar_name: written}
    for path in task.events_files:
        read = effective_sidecar(every, path)
        assert read["kind"]["HED"] == written["kind"]["HED"]
        assert _errors(read, {path: files.texts[path]}) == []
    # Without the rewrite, sub-01 reads its own (unknown) tag: the written HED would not take effect there.
    assert _errors(effective_sidecar({**every, **{p: files.json(p) for p in lower}}, task.events_files[0]),
                   {task.events_files[0]: files.texts[task.events_files[0]]})


@pytest.mark.parametrize("sidecar, events, expected", [
    ("task-t_events.json", "sub-01/ses-a/sub-01_ses-a_task-t_events.tsv", True),
    ("sub-01/sub-01_task-t_events.json", "sub-01/ses-a/sub-01_ses-a_task-t_events.tsv", True),
    ("sub-02/sub-02_task-t_events.json", "sub-01/sub-01_task-t_events.tsv", False),
    ("sub-01/sub-01_task-t_run-2_events.json", "sub-01/sub-01_task-t_run-1_events.tsv", False),
    ("sub-01/func/sub-01_task-t_events.json", "sub-01/sub-01_task-t_events.tsv", False),
])
def test_inheritance_follows_folders_and_entities(sidecar, events, expected):
    assert applies(sidecar, events) is expected


def test_the_dataset_zip_holds_the_rewritten_lower_sidecar():
    files = read_uploads(_dataset())
    written = {"task-t_events.json": {"kind": {"HED": {"vop": "Red", "zad": "Blue"}}}}
    out = io.BytesIO()
    write_dataset_zip(out, written, files=files)
    with zipfile.ZipFile(out) as archive:
        lower = json.loads(archive.read("sub-01/sub-01_task-t_events.json"))
        assert lower["kind"]["HED"] == {"vop": "Red", "zad": "Blue"}
        assert json.loads(archive.read("task-t_events.json")) == written["task-t_events.json"]


@pytest.mark.django_db(transaction=True)
def test_the_command_writes_lower_sidecars_at_their_paths(tmp_path):
    source = tmp_path / "ds"
    for name, data in _dataset():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(data)
    out = tmp_path / "out"
    try:
        call_command("annotate_dataset", str(source), "--out", str(out), "--schema", VERSION,
                     "--ignore-existing-hed", stdout=io.StringIO())
    except SystemExit as exc:  # a level left with a question: exit 1, the sidecars are written all the same
        assert exc.code == 1
    root = json.loads((out / "task-t_events.json").read_text())
    lower = json.loads((out / "sub-01" / "sub-01_task-t_events.json").read_text())
    assert root["kind"].get("HED") and lower["kind"].get("HED") == root["kind"]["HED"]
    assert lower["kind"]["Description"] == "Shown to this subject."


def _block_events() -> bytes:
    rows = ["onset\tduration\tkind"]
    for t, kind in enumerate(["begin", "glow", "tap", "glow", "tap", "end"], start=1):
        rows.append(f"{t}.0\t0\t{kind}")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.django_db(transaction=True)
def test_a_per_run_sidecar_using_definitions_validates_as_bids_reads_the_dataset(tmp_path):
    """hedtools' BidsDataset validates each sidecar alone: a lower sidecar's Def/ needs its Definition there."""
    from hed.tools.bids.bids_dataset import BidsDataset

    levels = {"glow": "A green circle appears.", "tap": "The participant presses a key.",
              "begin": "Start of the block.", "end": "End of the block."}
    source = tmp_path / "ds"
    files = {"dataset_description.json": json.dumps({"Name": "x", "BIDSVersion": "1.8.0", "HEDVersion": VERSION}),
             "task-t_events.json": json.dumps({"kind": {"Description": "What happened.", "Levels": levels}}),
             "sub-01/sub-01_task-t_run-1_events.json": json.dumps(
                 {"kind": {"Description": "This run.", "Levels": levels}})}
    for name, text in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    for run in (1, 2):
        (source / f"sub-01/sub-01_task-t_run-{run}_events.tsv").write_bytes(_block_events())
    out = tmp_path / "out"
    call_command("annotate_dataset", str(source), "--out", str(out), "--ignore-existing-hed", stdout=io.StringIO())
    written = {p.relative_to(out) for p in out.rglob("*.json")}
    assert written == {Path("task-t_events.json"), Path("sub-01/sub-01_task-t_run-1_events.json")}
    for name in written:
        (source / name).write_text((out / name).read_text())
    root = json.loads((out / "task-t_events.json").read_text())
    assert "Onset" in root["kind"]["HED"]["begin"]  # the block is a definition the run's sidecar uses too
    assert BidsDataset(str(source)).validate(check_for_warnings=False) == []


def test_levels_left_out_become_questions_and_data_to_fix_is_said_as_such():
    from bidsdata.assembly import DroppedTags
    from bidsdata.questions import left_out_questions

    notes = [DroppedTags("kind", " 4", (), reason="spaces", fix="write ' 4' as '4' in the events files"),
             DroppedTags("kind", "vop", (), reason="its HED fails validation with the events files (X)"),
             DroppedTags("kind", "zad", (), redundant=True, reason="only repeats another column"),
             DroppedTags("count", None, (), reason="no template: its values hold commas")]
    questions = {(q.column, q.level): q.text for q in left_out_questions(notes)}
    assert set(questions) == {("kind", " 4"), ("kind", "vop"), ("count", None)}
    assert questions[("kind", " 4")].startswith("Please fix the events files: write ' 4' as '4'")
    assert "`vop` in column `kind` gets no HED" in questions[("kind", "vop")]
    assert "What do its values record?" in questions[("count", None)]
