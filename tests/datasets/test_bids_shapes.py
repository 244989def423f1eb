"""No crash on any BIDS shape: generated events files and sidecars are refused with a message, or read,
composed and written as a sidecar that validates with every events file (issue 26, item 5): rows share onsets
(hedtools' one event), and events files sit in subject folders beside sidecars that redefine columns (BIDS
inheritance), where the written HED must take effect too.

The pure pipeline (read, inventory, compose, repair, build, validate) is driven directly, with every name,
level and HED made up here; two generated datasets also go through ``manage.py annotate_dataset`` for its exit.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bidsdata import tsv
from bidsdata.archive import read_uploads
from bidsdata.composition.valid import data_faults, valid_composition
from bidsdata.errors import DatasetError
from bidsdata.inheritance import effective_sidecar, lower_sidecars
from bidsdata.inventory import build_inventory
from bidsdata.sidecar import build_sidecar, validate_sidecar

VERSION = "8.3.0"
NAMES = ["kind", "cue_type", "42", "größe", "a-b.c", "my col", "résumé_side", "x!", "value", "rt", "Kind"]
WORDS = ["blorp", "BLORP", "Blorp", "zint", "ZINT", "quav", "n/a", "", "N/A", "NaN", '"left', '"wub"', "1.000",
         "1.0", "2", " 3", "ünk", "a b", "x,y"]
ONSETS = ["1.000", "1.0", "1", "2.5", "n/a", "", "3", "3.000", "abc"]
JSON_LEAF = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, width=16) | st.text(max_size=6)
JSON = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                            max_size=3), max_leaves=6)
HEDS = ["Sensory-event, Visual-presentation", "Agent-action, (Participant, Press)", "Red", "Blurb-tag-xyz",
        "Def/Nope", "(Onset)", "Label/#", "Parameter-value/#", ""]


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


@st.composite
def events_files(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A header (onset first, then made-up names, now and then an empty or repeated one) and rows as text."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4))
    if draw(st.integers(0, 9)) == 0:
        names.append(draw(st.sampled_from(["", " padded", names[0]])))
    header = ["onset", *names]
    texts = []
    for _ in range(draw(st.integers(1, 2))):
        # Onsets repeat (1, 1.0 and 1.000 are one instant): rows at one onset are one event to hedtools.
        rows = draw(st.lists(st.tuples(st.sampled_from(ONSETS), *[st.sampled_from(WORDS) for _ in names]),
                             min_size=1, max_size=8))
        texts.append("\n".join("\t".join(r) for r in [header, *rows]) + "\n")
    return header, texts


@st.composite
def sidecars(draw: st.DrawFn, header: list[str], *, lower: bool = False) -> dict[str, Any]:
    """A sidecar: some of the columns with Levels (object, list or text) and HED (object, text or a list),
    and keys that are no column holding any JSON (*lower*: a sidecar below the root, whose keys hold objects)."""
    sidecar: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(header[1:]), max_size=3, unique=True)):
        entry: dict[str, Any] = {}
        levels = draw(st.lists(st.sampled_from(WORDS[:6]), max_size=3, unique=True))
        shape = draw(st.sampled_from(["object", "list", "text", "none"]))
        if shape != "none":
            entry["Levels"] = ({lv: f"made-up {lv}" for lv in levels} if shape == "object" else
                               levels if shape == "list" else " ".join(levels))
        hed = draw(st.sampled_from(["object", "text", "list", "none"]))
        if hed == "object":
            entry["HED"] = {lv: draw(st.sampled_from(HEDS)) for lv in levels}
        elif hed == "text":
            entry["HED"] = draw(st.sampled_from(HEDS))
        elif hed == "list":
            entry["HED"] = [draw(st.sampled_from(HEDS))]
        if draw(st.booleans()):
            entry["Description"] = draw(JSON)
        sidecar[name] = entry
    for key in draw(st.lists(st.text(min_size=1, max_size=6), max_size=2)):  # mostly objects, as BIDS has them
        sidecar.setdefault(key, draw(st.dictionaries(st.text(max_size=5), JSON, max_size=3)
                                     if lower or draw(st.integers(0, 3)) else JSON))
    return sidecar


@st.composite
def datasets(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    header, texts = draw(events_files())
    folders = draw(st.booleans())  # BIDS layout: sub-01/sub-01_task-..., with sidecars below the root
    uploads = [(f"{f'sub-{n:02d}/' if folders else ''}sub-{n:02d}_task-shape_events.tsv", text.encode())
               for n, text in enumerate(texts, 1)]
    if draw(st.booleans()):
        uploads.append(("task-shape_events.json", json.dumps(draw(sidecars(header))).encode()))
    if folders and draw(st.booleans()):  # one subject's sidecar redefines columns: its keys win there
        uploads.append(("sub-01/sub-01_task-shape_events.json",
                        json.dumps(draw(sidecars(header, lower=True))).encode()))
    return uploads


def _chosen(task: Any) -> dict[str, Any]:
    """What the levels' runs would give: their uploaded HED where they have it, else made-up valid HED."""
    chosen: dict[str, Any] = {}
    for column in task.columns:
        if column.kind == "categorical":
            chosen[column.name] = {lv.value: lv.existing_hed or f"Sensory-event, Visual-presentation, "
                                   f"(Label/{_label(column.name)}-{_label(lv.value)})" for lv in column.levels}
        elif column.kind == "value":
            chosen[column.name] = (column.existing_hed if isinstance(column.existing_hed, str) and column.existing_hed
                                   else f"(Parameter-label/{_label(column.name)}, Parameter-value/#)")
    return chosen


def run_pipeline(uploads: list[tuple[str, bytes]]) -> list[str]:
    """The dataset job without Django: each task's sidecar errors (none expected), or a refusal."""
    try:
        files = read_uploads(uploads)
        inventory = build_inventory(files)
    except DatasetError as exc:  # refused at upload: one message naming the problem
        assert str(exc).strip() and "\n" not in str(exc)
        event(f"refused: {str(exc).partition(': ')[2][:30]}")
        return []
    event("read")
    left: list[str] = []
    for task in inventory.tasks:
        events = {path: files.texts[path] for path in task.events_files}
        _levels_as_read(task, events)

        def errors(composition: Any, task: Any = task, events: dict[str, str] = events) -> list[Any]:
            built = build_sidecar(task, composition.annotations, keep_existing_hed=False)
            sidecar = json.loads(json.dumps(composition.apply(built.sidecar)))  # what is written: plain JSON
            return [i for i in validate_sidecar(sidecar, events, VERSION, workers=1) if i.severity == "error"]

        composition = valid_composition(task, _chosen(task), events, VERSION, errors)
        faults = data_faults(events)  # a row written twice at one onset, rarely: the data's, named as such
        left += [f"{i.code} {i.column}/{i.level}: {i.message[:120]}" for i in errors(composition)
                 if (i.source, i.row) not in faults]
        left += _inherited_errors(files, task, events, composition)
    return left


def _inherited_errors(files: Any, task: Any, events: dict[str, str], composition: Any) -> list[str]:
    """Each events file validated with the sidecar it reads (BIDS inheritance, the lower sidecars rewritten as
    the job writes them); and every column's written HED is the HED that file reads."""
    built = build_sidecar(task, composition.annotations, keep_existing_hed=False)
    written = json.loads(json.dumps(composition.apply(built.sidecar)))
    lower = lower_sidecars(files, {task.sidecar_name: written}, {task.sidecar_name: task.events_files})
    if lower:
        event("lower sidecar rewritten")
    every = {**{p: files.json(p) for p in files.sidecar_files()}, **lower, task.sidecar_name: written}
    left = []
    for path, text in events.items():
        read = effective_sidecar(every, path)
        left += [f"{path}: {k} HED not written" for k, v in written.items() if v.get("HED") != read[k].get("HED")]
        left += [f"{path}: {i.code} {i.column}/{i.level}: {i.message[:120]}"
                 for i in validate_sidecar(read, {path: text}, VERSION, workers=1) if i.severity == "error"]
    return left


def _levels_as_read(task: Any, events: dict[str, str]) -> None:
    """A categorical column's levels are its cells as hedtools reads them (one reader everywhere)."""
    for column in task.columns:
        if column.kind != "categorical":
            continue
        cells = {row[column.name] for text in events.values() for row in tsv.records(text)
                 if not tsv.is_na(row.get(column.name))}
        assert cells <= {lv.value for lv in column.levels}, (column.name, cells)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(datasets())
def test_any_shape_is_refused_or_written_valid(uploads):
    assert run_pipeline(uploads) == []


@pytest.mark.parametrize("text, expected", [
    ('onset\tside\n1\t"left\n2\tNaN\n3\tN/A\n4\t\n5\tn/a\n', ['"left', "NaN", "N/A", "n/a", "n/a"]),
    ("onset\tside\n1\tx\ty\n2\n\n   \n3\tz\n", ["x", "n/a", "z"]),
])
def test_one_reader_reads_cells_as_hedtools_does(text, expected):
    from hed.models import TabularInput

    frame = TabularInput(__import__("io").StringIO(text), name="e.tsv").dataframe
    assert [row["side"] for row in tsv.records(text)] == list(frame["side"]) == expected


def test_the_composer_and_the_assembly_read_quotes_and_nan_as_levels():
    from bidsdata.assembly import assembled_events
    from bidsdata.composition.rows import EventRows

    text = 'onset\tside\n1.0\t"left\n1.000\tNaN\n2\tN/A\n'
    rows = EventRows.read({"e.tsv": text})
    assert [r["side"] for r in rows.all()] == ['"left', "NaN", "N/A"]
    assert rows.present("side") == 3
    # 1.0 and 1.000 are one instant to hedtools: one event of two rows, then one of one.
    assert [len(group) for group in rows.by_onset()] == [2, 1]
    assert [len(group) for group in assembled_events({"e.tsv": text})] == [2, 1]


def test_a_key_of_the_task_sidecar_that_is_no_column_entry_is_set_aside_with_a_note():
    uploads = [("sub-01_task-t_events.tsv", b"onset\tkind\n1\tblorp\n"),
               ("task-t_events.json", json.dumps({"Columns": ["onset", "kind"], "Note": "text",
                                                   "kind": {"Description": "What happened."}}).encode())]
    task = build_inventory(read_uploads(uploads)).tasks[0]
    assert set(task.original_sidecar) == {"kind"} and task.column("kind").description == "What happened."
    assert ["'Columns' holds a list" in n.message for n in task.notes] == [True, False]
    assert "'Note' holds text" in task.notes[1].message


@pytest.mark.parametrize("sidecar, named", [
    ({"kind": {"HED": ["Red"]}}, "column 'kind': HED is a list"),
    ({"kind": {"HED": {"blorp": 3}}}, "level 'blorp' is a number"),
])
def test_a_sidecar_hedtools_cannot_read_is_refused_naming_the_key(sidecar, named):
    uploads = [("sub-01_task-t_events.tsv", b"onset\tkind\n1\tblorp\n"),
               ("task-t_events.json", json.dumps(sidecar).encode())]
    with pytest.raises(DatasetError, match=re.escape(named)):
        build_inventory(read_uploads(uploads))


def test_levels_as_a_list_are_read_and_written_as_an_object():
    uploads = [("sub-01_task-t_events.tsv", b"onset\tkind\n1\tblorp\n2\tzint\n"),
               ("task-t_events.json", json.dumps({"kind": {"Levels": ["blorp", "quav"]}}).encode())]
    task = build_inventory(read_uploads(uploads)).tasks[0]
    assert [lv.value for lv in task.column("kind").levels] == ["blorp", "quav", "zint"]
    built = build_sidecar(task, {"kind": {"blorp": "Red", "zint": "Blue", "quav": "Green"}})
    assert set(built.sidecar["kind"]["Levels"]) == {"blorp", "quav", "zint"}
    assert not [i for i in validate_sidecar(built.sidecar, {}, VERSION) if i.severity == "error"]


@pytest.mark.parametrize("header, fix", [("onset\t kind\n", "write it as 'kind'"),
                                         ("onset\tkind\t\n", "column 3 has no name")])
def test_a_header_hedtools_flags_is_refused_with_the_fix(header, fix):
    with pytest.raises(DatasetError, match=re.escape(fix)):
        build_inventory(read_uploads([("sub-01_task-t_events.tsv", (header + "1\tblorp\t\n").encode())]))


def test_one_bad_column_keeps_the_others_composed():
    """A template hedtools refuses leaves that column out; the other columns' HED is kept, not the whole task's."""
    # (level_no is no mere encoding of kind: 5 goes with both kinds.)
    uploads = [("sub-01_task-t_events.tsv", b"onset\tkind\tlevel_no\n1\tblorp\t4\n2\tzint\t5\n3\tblorp\t5\n")]
    files = read_uploads(uploads)
    task = build_inventory(files).tasks[0]
    events = {p: files.texts[p] for p in task.events_files}
    chosen = {"kind": {"blorp": "Sensory-event, Visual-presentation, Red",
                       "zint": "Sensory-event, Visual-presentation, Blue"}}
    chosen.update({c.name: "Blurb-tag-xyz/#" for c in task.columns if c.kind == "value"})
    chosen.update({c.name: {lv.value: f"Blurb-tag-{lv.value}" for lv in c.levels}
                   for c in task.columns if c.kind == "categorical" and c.name != "kind"})

    def errors(composition):
        built = build_sidecar(task, composition.annotations, keep_existing_hed=False)
        return [i for i in validate_sidecar(composition.apply(built.sidecar), events, VERSION) if i.severity == "error"]

    composition = valid_composition(task, chosen, events, VERSION, errors)
    assert errors(composition) == []
    assert "level_no" not in composition.annotations
    assert set(composition.annotations["kind"]) == {"blorp", "zint"}
    assert any(note.column == "level_no" and "valid" in note.reason for note in composition.notes)


@pytest.mark.django_db(transaction=True)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(uploads=datasets())
def test_the_command_exits_zero_or_one(uploads, tmp_path_factory):
    folder = tmp_path_factory.mktemp("shape")
    paths = []
    for name, data in uploads:
        (folder / "ds" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "ds" / name).write_bytes(data)
        paths.append(str(folder / "ds" / name))
    if any("/" in name for name, _ in uploads):  # a BIDS folder: read as one, its subject folders kept
        paths = [str(folder / "ds")]
    try:
        call_command("annotate_dataset", *paths, "--out", str(folder / "out"), "--schema", VERSION)
    except CommandError as exc:  # exit 1 with one line (a refused upload, a failed job)
        assert "\n" not in str(exc)
    except SystemExit as exc:
        assert exc.code == 1
