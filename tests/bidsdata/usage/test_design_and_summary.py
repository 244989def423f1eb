"""Design matrices equal hedtools' get_factor_vectors; the type summary is hedtools' HedTypeCounts; tag counts are
hedtools' HedTagCounts, grouped by the summary guide's template."""

from __future__ import annotations

import warnings

import pytest

from bidsdata.archive import read_folder
from bidsdata.usage import TaskEvents
from bidsdata.usage.design import DesignError, check_design, condition_levels, factor_table, matrix_name
from bidsdata.usage.sources import dataset_version, task_sources, tasks_of
from bidsdata.usage.summary import OTHER, SUMMARY_OPTIONS, TAG_GROUPS
from tests.bidsdata.usage.hedtools_loop import bare_events, bare_factors


def _ours(folder, task):
    files = read_folder(folder)
    version = dataset_version(files)
    return TaskEvents(task, version, task_sources(files, tasks_of(files)[task], version))


def _conditional_tasks(folder, sidecar_of):
    """The tasks whose sidecar defines conditions (found by hedtools, not named here)."""
    files = read_folder(folder)
    version = dataset_version(files)
    return [t for t in tasks_of(files) if condition_levels(sidecar_of(folder, t), version)]


@pytest.mark.parametrize("encoding", ["one-hot", "categorical"])
def test_design_matrices_equal_get_factor_vectors(shared_dataset, sidecar_of, encoding):
    for task in _conditional_tasks(shared_dataset, sidecar_of):  # a task without conditions: the made-up one
        expected = bare_factors(shared_dataset, task, "Condition-variable", encoding)
        for found in _ours(shared_dataset, task).designs("Condition-variable", encoding):
            frame = expected[found.path]
            assert found.refused is None
            assert found.columns[:2] == ["row", "onset"]
            if frame is None:
                assert found.columns == ["row", "onset"]
                continue
            assert found.columns[2:] == [str(c) for c in frame.columns]
            assert [row[2:] for row in found.rows] == frame.values.tolist()


def test_a_dataset_with_conditions_has_its_factors_counted_as_hedtools_counts_them(shared_dataset, sidecar_of):
    from hed.tools.analysis.hed_type_counts import HedTypeCounts
    from hed.tools.analysis.hed_type_manager import HedTypeManager

    for task in _conditional_tasks(shared_dataset, sidecar_of):
        ours = _ours(shared_dataset, task)
        summary = ours.design_summary(list(ours.designs()), "Condition-variable")
        counts = HedTypeCounts(task, "condition-variable")
        for path, manager, _ in bare_events(shared_dataset, task):
            types = HedTypeManager(manager)
            types.add_type("Condition-variable")
            found = types.get_type("condition-variable")
            counts.update_summary(found.get_summary(), found.total_events, path)
        expected = counts.get_summary()
        assert summary["total_events"] == expected["total_events"]
        assert {k: (v["events"], v.get("level_counts", {}) and {lv: c["events"] for lv, c in v["level_counts"].items()})
                for k, v in summary["details"].items()} == \
            {k: (v["events"], v.get("level_counts", {}) and {lv: c["events"] for lv, c in v["level_counts"].items()})
             for k, v in expected["details"].items()}
        table = factor_table(summary)
        assert {(r["factor"], r["level"]) for r in table if r["level"]} == {
            (k, lv) for k, v in expected["details"].items() for lv in v.get("level_counts", {})}


def test_tag_counts_equal_hedtools_tag_counts(shared_dataset):
    from hed.tools.analysis.hed_tag_counts import HedTagCounts

    for task in tasks_of(read_folder(shared_dataset)):
        ours = _ours(shared_dataset, task).summary()
        counts = HedTagCounts(task, total_events=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for path, _manager, objects in bare_events(shared_dataset, task, include_context=True, replace_defs=True,
                                                       remove_types=SUMMARY_OPTIONS.remove_types):
                counts.total_events += len(objects)
                for obj in objects:
                    counts.update_tag_counts(obj, path)
        assert ours["total_events"] == counts.total_events
        got = {t["tag"]: (t["events"], t["files"]) for g in ours["groups"] for t in g["tags"]}
        assert got == {c.tag: (c.events, len(c.files)) for c in counts.tag_dict.values()}
        _, others = counts.organize_tags(TAG_GROUPS)
        assert [g["title"] for g in ours["groups"]] == [*TAG_GROUPS, OTHER]
        assert {t["tag"] for t in ours["groups"][-1]["tags"]} == {c.tag for c in others}


def test_the_made_up_conditions_one_hot_and_categorical(made_up):
    ours = _ours(made_up, "demo")
    one_hot = list(ours.designs())
    assert one_hot[0].columns == ["row", "onset", "trial-kind.go-cond", "trial-kind.halt-cond"]
    categorical = list(ours.designs(encoding="categorical"))
    assert categorical[0].columns == ["row", "onset", "trial-kind"]
    assert {row[2] for f in categorical for row in f.rows} <= {"go-cond", "halt-cond", "n/a"}
    assert matrix_name("sub-01/eeg/sub-01_task-demo_run-1_events.tsv") == "sub-01_task-demo_run-1_design.tsv"
    assert one_hot[0].tsv().splitlines()[0] == "row\tonset\ttrial-kind.go-cond\ttrial-kind.halt-cond"
    blocks = list(ours.designs("Time-block"))  # a Time-block of an Onset/Offset definition
    assert blocks[0].columns[2:] == list(bare_factors(made_up, "demo", "Time-block", "one-hot")[blocks[0].path])
    expected = bare_factors(made_up, "demo", "Condition-variable", "one-hot")
    assert [r[2:] for r in one_hot[0].rows] == expected[one_hot[0].path].values.tolist()


def test_an_unknown_type_or_encoding_is_refused_with_the_choices():
    with pytest.raises(DesignError, match="choose one of: Condition-variable, Task, Time-block"):
        check_design("Conditions", "one-hot")
    with pytest.raises(DesignError, match="one-hot, categorical"):
        check_design("Task", "dummy")
    assert check_design("condition-VARIABLE", "categorical") == "Condition-variable"
