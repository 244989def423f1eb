"""Sidecars built from an inventory: curators' HED as the chosen annotations, validation, exports."""

from __future__ import annotations

import copy
import io
import json
import zipfile

import pytest

from bidsdata.archive import read_folder, read_uploads, read_zip
from bidsdata.inventory import build_inventory
from bidsdata.sidecar import (
    SIDECAR,
    MissingAnnotation,
    build_sidecar,
    sidecar_to_spreadsheet,
    validate_sidecar,
    validate_task,
    write_dataset_zip,
)
from tests.support.datasets import DATA, DATASETS, SKIP, strip_hed, zip_folder


def spreadsheet_to_hed(text: str) -> dict:
    """The 4-column TSV read back into a sidecar as hedtools reads it (``df_to_hed``)."""
    import pandas as pd
    from hed.tools.analysis.annotation_util import df_to_hed

    frame = pd.read_csv(io.StringIO(text), sep="\t", dtype=str, keep_default_na=False)
    return df_to_hed(frame, description_tag=False)


def definition_keys(curated: dict) -> list[str]:
    """The curators' definition entries: keys whose HED holds a Definition/ (no events column is so named)."""
    return [key for key, entry in curated.items()
            if isinstance(entry, dict) and "Definition/" in json.dumps(entry.get("HED", ""))]


def _stripped_copy(dataset: str, tmp_path):
    """The dataset as a lab uploads it: sidecars without HED."""
    target = tmp_path / dataset
    for path in (DATA / dataset).rglob("*"):
        if path.is_file():
            out = target / path.relative_to(DATA / dataset)
            out.parent.mkdir(parents=True, exist_ok=True)
            if path.name.endswith("_events.json"):
                out.write_text(json.dumps(strip_hed(json.loads(path.read_text()))))
            else:
                out.write_bytes(path.read_bytes())
    return target


@pytest.mark.parametrize("dataset", DATASETS)
def test_curators_hed_as_annotations_validates_and_keeps_other_keys(dataset, tmp_path):
    files = read_folder(_stripped_copy(dataset, tmp_path))
    inventory = build_inventory(files)
    for task in inventory.tasks:
        curated = json.loads((DATA / dataset / task.sidecar_name).read_text())
        assert all(c.existing_hed is None for c in task.columns)
        for column in task.columns:  # a counter the curators annotated (trial: Experimental-trial/#) is made a
            curated_hed = curated.get(column.name, {}).get("HED")  # value column, as a lab does on the project page
            if column.kind == "skip" and column.name not in SKIP and isinstance(curated_hed, str):
                column.kind = "value"
        annotations = {c.name: curated[c.name]["HED"] for c in task.columns
                       if c.kind != "skip" and "HED" in curated.get(c.name, {})}
        # The lab's definitions are not in the stripped upload: they come with the curators' HED.
        task.original_sidecar.update({k: copy.deepcopy(curated[k]) for k in definition_keys(curated)
                                     if k not in {c.name for c in task.columns}})
        build = build_sidecar(task, annotations)
        sidecar = build.sidecar
        for key, entry in curated.items():
            assert key in sidecar
            for field, value in entry.items():
                if field == "Levels":  # every declared level kept, with its description
                    assert {k: sidecar[key]["Levels"][k] for k in value} == value
                else:  # HED, Units, LongName, Description, definition entries: exactly as curated
                    assert sidecar[key][field] == value, (key, field)
        # Every level either annotated or reported: none silently dropped.
        for column in task.columns:
            if column.kind == "categorical":
                hed = sidecar[column.name].get("HED", {})
                for level in column.levels:
                    assert level.value in sidecar[column.name]["Levels"]
                    assert level.value in hed or MissingAnnotation(column.name, level.value) in build.missing
        issues = validate_task(files, task, sidecar, inventory.hed_version)
        assert [i for i in issues if i.severity == "error"] == [], issues[:3]


def test_missing_levels_are_reported_never_dropped():
    tsv = b"onset\tduration\tcue\trt\n1\tn/a\tleft\t0.4\n2\tn/a\tright\t0.5\n3\tn/a\tup\tn/a\n"
    inventory = build_inventory(read_uploads([("sub-01_task-a_events.tsv", tsv)]))
    task = inventory.tasks[0]
    build = build_sidecar(task, {"cue": {"left": "Sensory-event, (Visual-presentation, Left-side-of)"}})
    assert build.sidecar["cue"]["Levels"] == {"left": "cue: left", "right": "cue: right", "up": "cue: up"}
    assert build.sidecar["cue"]["HED"] == {"left": "Sensory-event, (Visual-presentation, Left-side-of)"}
    assert build.missing == [MissingAnnotation("cue", "right"), MissingAnnotation("cue", "up"),
                             MissingAnnotation("rt", None)]
    assert "onset" not in build.sidecar


def test_wrong_annotation_shapes_are_refused():
    tsv = b"onset\tduration\tcue\trt\n1\tn/a\tleft\t0.4\n"
    task = build_inventory(read_uploads([("sub-01_task-a_events.tsv", tsv)])).tasks[0]
    with pytest.raises(ValueError, match="no annotatable column 'nope'"):
        build_sidecar(task, {"nope": "Item/#"})
    with pytest.raises(ValueError, match="categorical"):
        build_sidecar(task, {"cue": "Item/#"})
    with pytest.raises(ValueError, match="value"):
        build_sidecar(task, {"rt": {"0.4": "Item"}})


def test_issues_are_mapped_to_sidecar_column_and_level():
    sidecar = {"cue": {"Levels": {"left": "x"}, "HED": {"left": "Sensory-event, Blorp"}},
               "rt": {"HED": "Item-interval/#, Foo/#"}}
    issues = validate_sidecar(sidecar, {}, "8.4.0")
    assert {(i.source, i.column, i.level, i.code) for i in issues} >= {
        (SIDECAR, "cue", "left", "TAG_INVALID"), (SIDECAR, "rt", None, "TAG_INVALID")}


def test_issues_in_events_files_name_file_row_and_level():
    tsv = "onset\tduration\tcue\tshape\n1\tn/a\tleft\tdisc\n2\tn/a\tright\tdisc\n"
    sidecar = {"cue": {"HED": {"left": "Sensory-event, Visual-presentation", "right": "Sensory-event"}},
               "shape": {"HED": {"disc": "Visual-presentation, Circle"}}}
    issues = validate_sidecar(sidecar, {"sub-01_task-a_events.tsv": tsv}, "8.4.0")
    assert issues, "the repeated Visual-presentation in row 2 must be found"
    first = issues[0]
    assert first.source == "sub-01_task-a_events.tsv"
    assert first.row == 2
    assert first.code == "TAG_EXPRESSION_REPEATED"
    assert ("cue", "left") in first.related and ("shape", "disc") in first.related


def test_spreadsheet_round_trip():
    sidecar = {  # made up: levels with HED, a value column, a column without HED, a definitions entry
        "event_type": {"Description": "What happened", "Levels": {"show_star": "A star appears.", "tap": "A tap."},
                       "HED": {"show_star": "Sensory-event, Visual-presentation, (Def/Star-shown, Star)",
                               "tap": "Agent-action, Participant-response, (Press, Keyboard-key)"}},
        "trial": {"Description": "Trial number", "HED": "Experimental-trial/#"},
        "notes": {"Description": "Free notes"},
        "star_defs": {"HED": {"star_def": "(Definition/Star-shown, (Visual-presentation, Star))"}},
    }
    text = sidecar_to_spreadsheet(sidecar)
    lines = text.splitlines()
    assert lines[0].split("\t") == ["column_name", "column_value", "description", "HED"]
    expected_rows = sum(len(e["HED"]) if isinstance(e["HED"], dict) else 1
                        for e in sidecar.values() if isinstance(e, dict) and "HED" in e)
    assert len(lines) == 1 + expected_rows
    back = spreadsheet_to_hed(text)
    assert back["event_type"]["HED"] == sidecar["event_type"]["HED"]
    assert back["trial"]["HED"] == sidecar["trial"]["HED"]


def test_dataset_zip_has_the_new_sidecars_in_place(tmp_path):
    dataset = tmp_path / "lab"  # made up: a root sidecar, events in a session folder, a README
    (dataset / "sub-01" / "ses-01" / "eeg").mkdir(parents=True)
    (dataset / "README").write_text("Taps on a blinking star.")
    (dataset / "dataset_description.json").write_text(json.dumps({"Name": "lab", "BIDSVersion": "1.8.0"}))
    (dataset / "task-tapping_events.json").write_text(json.dumps({"value": {"Levels": {"31": "A star blinks."}}}))
    (dataset / "sub-01" / "ses-01" / "eeg" / "sub-01_ses-01_task-tapping_events.tsv").write_text(
        "onset\tduration\tvalue\n1.0\tn/a\t31\n")
    source = zip_folder(dataset, tmp_path / "in.zip", top="ds",
                        extra={"ds/sub-01/ses-01/eeg/sub-01_ses-01_task-tapping_eeg.set": b"\x01" * 1000})
    files = read_zip(source)
    new = {"task-tapping_events.json": {"value": {"HED": {"31": "Sensory-event"}}}}
    out = io.BytesIO()
    write_dataset_zip(out, new, files=files, source_zip=source, source_prefix="ds")
    out.seek(0)
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        assert len(names) == len(set(names))
        assert json.loads(zf.read("task-tapping_events.json")) == new["task-tapping_events.json"]
        assert zf.read("sub-01/ses-01/eeg/sub-01_ses-01_task-tapping_eeg.set") == b"\x01" * 1000
        expected = {p.relative_to(dataset).as_posix() for p in dataset.rglob("*") if p.is_file()}
        assert expected <= set(names)
    out.seek(0)
    again = read_zip(out)
    assert again.json("task-tapping_events.json") == new["task-tapping_events.json"]
