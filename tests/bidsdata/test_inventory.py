"""Inventory of the three shared BIDS datasets, read as a folder and as a zip, against csv-computed facts."""

from __future__ import annotations

import json

import pytest

from bidsdata.archive import DatasetError, read_folder, read_uploads, read_zip
from bidsdata.inventory import Inventory, build_inventory, entities
from tests.support.datasets import DATA, DATASETS, expected, zip_bytes, zip_folder


@pytest.fixture(scope="module", params=DATASETS)
def dataset(request):
    return request.param


def _check(inventory: Inventory, folder) -> None:
    want = expected(folder)
    assert [t.task for t in inventory.tasks] == sorted(want)
    for task in inventory.tasks:
        info = want[task.task]
        assert task.sidecar_name == info["sidecar_name"]
        assert task.events_files == info["files"]
        assert [c.name for c in task.columns] == list(info["columns"])
        for column in task.columns:
            kind, levels = info["columns"][column.name]
            assert column.kind == kind, column.name
            assert {lv.value: lv.count for lv in column.levels} == levels, column.name


def test_folder_inventory_matches_the_files(dataset):
    folder = DATA / dataset
    inventory = build_inventory(read_folder(folder))
    assert inventory.hed_version == json.loads((folder / "dataset_description.json").read_text())["HEDVersion"]
    _check(inventory, folder)


@pytest.mark.parametrize("top", [None, "dataset"])
def test_zip_inventory_matches_the_files(dataset, tmp_path, top):
    folder = DATA / dataset
    extra = {"sub-99/eeg/sub-99_task-X_eeg.eeg" if not top else f"{top}/sub-99/eeg/sub-99_task-X_eeg.eeg": b"\0" * 64}
    archive = zip_folder(folder, tmp_path / "ds.zip", top=top, extra=extra)
    files = read_zip(archive)
    assert not any(p.endswith(".eeg") for p in files.paths())
    inventory = build_inventory(files)
    _check(inventory, folder)
    # Stored as JSON and read back unchanged.
    assert Inventory.from_dict(json.loads(json.dumps(inventory.to_dict()))) == inventory


def test_macosx_and_irrelevant_files_are_ignored():
    tsv = b"onset\tduration\tcue\n1.0\tn/a\tleft\n"
    files = read_zip(zip_bytes({"ds/sub-01/sub-01_task-a_events.tsv": tsv,
                                "__MACOSX/ds/sub-01/._sub-01_task-a_events.tsv": b"\xff\xfe junk",
                                "ds/README": b"hello", "ds/sub-01/sub-01_task-a_eeg.set": b"\x00\x01"}))
    assert files.paths() == ["sub-01/sub-01_task-a_events.tsv"]


# A made-up curated dataset: levels described and annotated, a file column with HED, lab definitions.
CURATED = {
    "onset": {"Description": "Start of the event", "Units": "s"},
    "event_type": {"Description": "What happened", "Levels": {
        "show_star": "Display a star in the centre of the screen.", "press": "The participant presses a key."},
        "HED": {"show_star": "Sensory-event, Visual-presentation, (Def/Star-shown, Star)",
                "press": "Agent-action, Participant-response, (Press, Keyboard-key)"}},
    "stim_file": {"Description": "The picture shown", "HED": "(Image, Pathname/#)"},
    "defs_screen": {"HED": {"star_def": "(Definition/Star-shown, (Visual-presentation, Star))"}},
    "defs_keys": {"HED": {"key_def": "(Definition/Key-held, (Press, Keyboard-key))"}},
}
CURATED_EVENTS = "onset\tduration\tevent_type\tstim_file\n1.0\t0.5\tshow_star\tstar_01.png\n2.0\tn/a\tpress\tn/a\n"


def _curated_folder(tmp_path):
    folder = tmp_path / "curated"
    (folder / "sub-01").mkdir(parents=True)
    (folder / "dataset_description.json").write_text(json.dumps({"Name": "stars", "BIDSVersion": "1.8.0",
                                                                 "HEDVersion": "8.2.0"}))
    (folder / "task-stars_events.json").write_text(json.dumps(CURATED))
    (folder / "sub-01" / "sub-01_task-stars_events.tsv").write_text(CURATED_EVENTS)
    return folder


def test_existing_descriptions_and_hed_are_kept(tmp_path):
    inventory = build_inventory(read_folder(_curated_folder(tmp_path)))
    task = inventory.task("stars")
    event_type = task.column("event_type")
    assert event_type.description == CURATED["event_type"]["Description"]
    assert event_type.existing_hed == CURATED["event_type"]["HED"]
    show_star = event_type.level("show_star")
    assert show_star.description == CURATED["event_type"]["Levels"]["show_star"]
    assert not show_star.needs_description
    assert show_star.existing_hed == CURATED["event_type"]["HED"]["show_star"]
    assert task.column("stim_file").existing_hed == CURATED["stim_file"]["HED"]
    assert set(task.definition_keys) == {"defs_screen", "defs_keys"}
    assert task.original_sidecar == CURATED
    assert task.column("onset").units == "s"


def test_ignore_existing_hed_drops_all_hed_including_definitions(tmp_path):
    inventory = build_inventory(read_folder(_curated_folder(tmp_path)), ignore_existing_hed=True)
    task = inventory.task("stars")
    assert task.definition_keys == []
    assert all(c.existing_hed is None for c in task.columns)
    assert not any("HED" in v for v in task.original_sidecar.values() if isinstance(v, dict))
    assert task.column("event_type").level("show_star").description.startswith("Display a star")


def test_generated_descriptions_need_review():
    tsv = b"onset\tduration\tevent_type\n1\tn/a\tshow_star\n2\tn/a\tn/a\n3\tn/a\tshow_star\n"
    inventory = build_inventory(read_uploads([("sub-01_task-faces_events.tsv", tsv)]))
    task = inventory.tasks[0]
    assert task.sidecar_name == "task-faces_events.json"
    column = task.column("event_type")
    assert column.kind == "categorical"
    assert column.needs_description and column.description == "event type"
    assert [(lv.value, lv.count, lv.description, lv.needs_description) for lv in column.levels] == [
        ("show_star", 2, "show star event", True)]
    assert inventory.hed_version is None


def test_root_sidecar_with_entities_names_the_output():
    tsv = b"onset\tduration\tcue\n1\tn/a\tleft\n"
    inventory = build_inventory(read_uploads([
        ("ds/sub-01/func/sub-01_task-rest_acq-fast_events.tsv", tsv),
        ("ds/task-rest_acq-fast_events.json", b'{"cue": {"Description": "The cue side."}}')]))
    assert inventory.tasks[0].sidecar_name == "task-rest_acq-fast_events.json"
    assert inventory.tasks[0].column("cue").description == "The cue side."
    assert entities("sub-01_task-rest_acq-fast_events.tsv") == {"sub": "01", "task": "rest", "acq": "fast"}


def test_column_with_thousands_of_distinct_values_is_a_value_column():
    rows = "".join(f"{i}\tn/a\tword{i}\tA\n" for i in range(3000))
    tsv = f"onset\tduration\tword\tgroup\n{rows}".encode()
    task = build_inventory(read_uploads([("sub-01_task-read_events.tsv", tsv)])).tasks[0]
    assert task.column("word").kind == "value"
    assert task.column("word").levels == []
    assert task.column("group").kind == "categorical"


def test_numeric_column_is_a_value_column_unless_the_sidecar_lists_levels():
    tsv = b"onset\tduration\tcode\trt\n1\tn/a\t11.5\t0.5\n2\tn/a\t12\t0.7\n"
    plain = build_inventory(read_uploads([("sub-01_task-a_events.tsv", tsv)])).tasks[0]
    assert plain.column("code").kind == "value"
    assert plain.column("rt").kind == "value"
    sidecar = b'{"code": {"Levels": {"11.5": "Left cue.", "12": "Right cue.", "13": "Unused."}}}'
    declared = build_inventory(read_uploads([("sub-01_task-a_events.tsv", tsv),
                                             ("task-a_events.json", sidecar)])).tasks[0]
    assert declared.column("code").kind == "categorical"
    assert [(lv.value, lv.count) for lv in declared.column("code").levels] == [("11.5", 1), ("12", 1), ("13", 0)]


def test_events_file_without_task_entity_is_refused():
    with pytest.raises(DatasetError, match=r"sub-01_events\.tsv.*task"):
        build_inventory(read_uploads([("sub-01/sub-01_events.tsv", b"onset\tduration\n1\tn/a\n")]))


def _with_version(version) -> list[tuple[str, bytes]]:
    description = json.dumps({"Name": "x", "BIDSVersion": "1.8.0", "HEDVersion": version}).encode()
    return [("dataset_description.json", description), ("sub-01_task-a_events.tsv", b"onset\tduration\n1\tn/a\n")]


def test_library_schema_that_hedtools_cannot_load_is_refused():
    with pytest.raises(DatasetError, match=r"unknown HED schema version 'sc:score_9\.9\.9'"):
        build_inventory(read_uploads(_with_version("sc:score_9.9.9")))
    with pytest.raises(DatasetError, match=r"unknown HED schema version 'madeup_1\.0\.0'"):
        build_inventory(read_uploads(_with_version(["8.3.0", "madeup_1.0.0"])))


def test_unknown_standard_version_is_refused():
    with pytest.raises(DatasetError, match=r"unknown HED schema version '9\.9\.9'"):
        build_inventory(read_uploads(_with_version("9.9.9")))


def test_standard_and_bundled_versions_are_accepted():
    assert build_inventory(read_uploads(_with_version("8.2.0"))).hed_version == "8.2.0"
    assert build_inventory(read_uploads(_with_version(["8.3.0", "sc:score_2.0.0"]))).hed_version == [
        "8.3.0", "sc:score_2.0.0"]


def test_a_subject_sidecar_at_the_top_is_not_the_dataset_sidecar():
    tsv = b"onset\tduration\tcue\n1\tn/a\tleft\n"
    task = build_inventory(read_uploads([("sub-01_task-a_events.tsv", tsv),
                                         ("sub-01_task-a_events.json", b'{"cue": {"Description": "Side."}}')])).tasks[0]
    assert task.sidecar_name == "task-a_events.json"
    assert task.column("cue").description == "Side."


def test_the_package_imports_no_django():
    import subprocess
    import sys

    code = ("import sys, bidsdata.sidecar, bidsdata.value_templates; "
            "sys.exit(any(m.split('.')[0] == 'django' for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=120).returncode == 0


def test_levels_keyed_with_a_prefix_or_padding_describe_the_values_the_files_write():
    from bidsdata.level_keys import written_as

    assert written_as({"c3": "a", "c12": "b"}, {"3": 4, "12": 2}) == {"c3": "3", "c12": "12"}
    assert written_as({"007": "a"}, {"7": 1}) == {"007": "7"}
    # A key that maps nowhere, or two keys onto one value: as declared, for the lab to say.
    assert written_as({"c3": "a", "go": "b"}, {"3": 1, "9": 1}) == {}
    assert written_as({"c3": "a", "03": "b"}, {"3": 1}) == {}
    uploads = [("sub-01_task-t_events.tsv", b"onset\tcode\n1\t3\n2\t12\n"),
               ("task-t_events.json", b'{"code": {"Levels": {"c3": "A bell rings.", "c12": "A lamp flashes."}}}')]
    task = build_inventory(read_uploads(uploads)).tasks[0]
    assert {lv.value: lv.description for lv in task.column("code").levels} == {"3": "A bell rings.",
                                                                              "12": "A lamp flashes."}
    assert list(task.original_sidecar["code"]["Levels"]) == ["3", "12"]  # written back as the files key them


def test_a_row_written_twice_at_one_onset_is_noted_in_plain_words() -> None:
    from bidsdata.archive import read_uploads
    from bidsdata.inventory import build_inventory

    text = "onset\tduration\tcue\n1.0\tn/a\tleft\n2.0\tn/a\tright\n2.0\tn/a\tleft\n2.0\tn/a\tright\n3.0\tn/a\tleft\n"
    task = build_inventory(read_uploads([("sub-01_task-a_events.tsv", text.encode())])).tasks[0]
    assert [n.message.split(" (")[0] for n in task.notes] == ["1 row(s) repeat another row of their event in "
                                                              "every column"]
    assert "onset 2.0" in task.notes[0].message and "Remove the repeated rows" in task.notes[0].message
    assert task.notes[0].code == "EVENTS_REPEATED"
    alone = "onset\tduration\tcue\n1.0\tn/a\tleft\n1.0\tn/a\tright\n2.0\tn/a\tleft\n"  # one onset, rows differ
    assert not build_inventory(read_uploads([("sub-01_task-a_events.tsv", alone.encode())])).tasks[0].notes
