"""A search's answers equal hedtools' own loop (EventManager -> HedTagManager.get_hed_objs -> search_hed_objs) on
the shared curated datasets and a made-up one, for each way of assembling the rows."""

from __future__ import annotations

import pytest

from bidsdata.archive import read_folder
from bidsdata.usage import Options, TaskEvents
from bidsdata.usage.sources import dataset_version, task_sources, tasks_of
from tests.bidsdata.usage.hedtools_loop import bare_events, bare_search

# General HED vocabulary and every operator of hedtools' syntax; nothing coined by a dataset.
QUERIES = ["Sensory-event", "Agent-action", "@Event", "Event && ~Agent-action", "Def/*", "[Event && Item]",
           "{Sensory-event, ?}", "Event-context || Onset", "[{Agent-action:}]", "Participant-response && Press",
           "{Def/*, ???}", "Visual-presentation && (Item || Property)"]
OPTIONS = [Options(), Options(include_context=False), Options(replace_defs=True),
           Options(remove_types=("Condition-variable", "Task")),
           Options(include_context=False, replace_defs=True, remove_types=("Condition-variable",))]
SHARED_OPTIONS = [OPTIONS[0], OPTIONS[-1]]
"""On the shared datasets (thousands of rows each): hedtools' defaults, and every toggle turned at once."""


def _ours(folder, task, options):
    files = read_folder(folder)
    version = dataset_version(files)
    return TaskEvents(task, version, task_sources(files, tasks_of(files)[task], version))


def _assembly(options: Options) -> dict:
    return {"include_context": options.include_context, "replace_defs": options.replace_defs,
            "remove_types": options.remove_types}


@pytest.mark.parametrize("options", SHARED_OPTIONS, ids=lambda o: "-".join(f"{v}" for v in o.key()))
def test_counts_and_rows_equal_hedtools_on_the_shared_datasets(shared_dataset, options):
    for task in tasks_of(read_folder(shared_dataset)):
        expected = bare_search(shared_dataset, task, QUERIES, **_assembly(options))
        ours = _ours(shared_dataset, task, options)
        counts = ours.counts(QUERIES, options)
        assert [f.path for f in counts.files] == list(expected)
        for found in counts.files:
            flags = expected[found.path]
            assert found.refused is None
            assert found.events == len(flags)
            assert found.matches == [sum(row[i] for row in flags) for i in range(len(QUERIES))], found.path
        # Row by row: every event any query matches, with its row, onset and answers, in hedtools' order.
        managers = {path: manager for path, manager, _ in bare_events(shared_dataset, task, **_assembly(options))}
        want = []
        for path, flags in expected.items():
            manager = managers[path]
            for index, row in enumerate(flags):
                if any(row):
                    want.append((path, int(manager.original_index[index]), float(manager.onsets[index]), row))
        got = [(r.path, r.row, r.onset, r.answers) for r in ours.rows(QUERIES, options)]
        assert got == want


def test_the_made_up_dataset_with_definitions_onsets_and_delays(made_up):
    queries = ["Participant-response", "Def/Go-cond", "Def/Session-phase && Event-context", "Condition-variable",
               "Time-block"]
    for options in OPTIONS:
        expected = bare_search(made_up, "demo", queries, **_assembly(options))
        counts = _ours(made_up, "demo", options).counts(queries, options)
        assert {f.path: f.matches for f in counts.files} == {
            path: [sum(r[i] for r in flags) for i in range(len(queries))] for path, flags in expected.items()}
    # The Delay groups are events of their own (a file's rows, plus one per reaction time).
    counts = _ours(made_up, "demo", Options()).counts(["Participant-response"])
    assert [f.events - f.rows for f in counts.files] == [f.matches[0] for f in counts.files]
    assert all(f.matched_rows == f.matches for f in counts.files)


def test_a_page_of_rows_is_the_slice_of_every_row(made_up):
    ours = _ours(made_up, "demo", Options())
    queries = ["Sensory-event", "Agent-action"]
    counts = ours.counts(queries)
    every = list(ours.rows(queries, with_hed=True))
    assert len(every) == counts.any_matches
    for offset, limit in [(0, 3), (2, 4), (5, 100), (len(every) - 1, 5)]:
        page = ours.page(queries, Options(), counts, offset=offset, limit=limit)
        assert [(r.path, r.row, r.onset) for r in page] == [(r.path, r.row, r.onset) for r in
                                                           every[offset:offset + limit]]
        assert all(r.hed for r in page)
