"""Each events file is assembled once per key and options, in the process that owns its revision: a second query
of the same revision assembles nothing; a file hedtools refuses is named and the rest searched; a process
killed meanwhile is replaced."""

from __future__ import annotations

import os
import signal

import pytest

from bidsdata.archive import read_folder
from bidsdata.usage import Options, TaskEvents
from bidsdata.usage import workers as search_workers
from bidsdata.usage.search import Store, count, store
from bidsdata.usage.sources import NeedTexts, dataset_version, make_source, task_sources, tasks_of
from tests.bidsdata.usage.hedtools_loop import MADE_UP_ROWS, events_text


def _events(folder):
    files = read_folder(folder)
    version = dataset_version(files)
    return TaskEvents("demo", version, task_sources(files, tasks_of(files)["demo"], version))


def test_a_second_query_of_the_same_revision_assembles_nothing(made_up):
    store().clear()
    events = _events(made_up)
    events.counts(["Sensory-event"])
    files = store().assembled
    assert files == len(events.sources)
    events.counts(["Agent-action", "Def/Go-cond"])
    list(events.rows(["Red"], with_hed=True))
    assert store().assembled == files
    events.summary()  # other options (the summary's): each file assembled again, once
    events.summary()
    assert store().assembled == 2 * files
    events.counts(["Sensory-event"], Options(include_context=False))
    assert store().assembled == 3 * files


def test_sources_travel_without_their_text_until_asked(made_up):
    events = _events(made_up)
    refs = [s.ref() for s in events.sources]
    held = Store()
    with pytest.raises(NeedTexts) as asked:
        count(refs, ["Event"], events.version, store_=held)
    assert set(asked.value.keys) == {s.key for s in events.sources}
    count(events.sources, ["Event"], events.version, store_=held)
    again = count(refs, ["Event", "Red"], events.version, store_=held)  # held now: no text needed
    assert [f.path for f in again.files] == [s.path for s in events.sources]


def test_a_store_keeps_no_more_events_than_its_bound(made_up):
    events = _events(made_up)
    held = Store(max_events=8)
    count(events.sources, ["Event"], events.version, store_=held)
    kept = [held.held(s.key, Options()) for s in events.sources]
    assert sum(len(k) for k in kept if k is not None) <= 8 or sum(k is not None for k in kept) == 1


def test_a_file_hedtools_refuses_is_named_with_the_reason_and_the_rest_searched(made_up):
    backwards = made_up / "sub-02" / "eeg" / "sub-02_task-demo_run-1_events.tsv"
    backwards.parent.mkdir(parents=True)
    backwards.write_text(events_text(list(reversed(MADE_UP_ROWS))))
    counts = _events(made_up).counts(["Sensory-event"])
    refused = {f.path: f.refused for f in counts.refused}
    assert list(refused) == ["sub-02/eeg/sub-02_task-demo_run-1_events.tsv"]
    assert "onset" in refused[next(iter(refused))].lower()
    assert all(f.matches[0] > 0 for f in counts.files if not f.refused)


def test_a_search_process_keeps_the_revision_and_a_killed_one_is_replaced(made_up):
    search_workers.configure_search(1)
    try:
        events = _events(made_up)
        events.counts(["Sensory-event"])
        stats = search_workers.call(events.revision, search_workers.store_stats)
        assert stats["pid"] != os.getpid()
        events.counts(["Agent-action"])
        assert search_workers.call(events.revision, search_workers.store_stats) == stats  # nothing assembled again
        os.kill(stats["pid"], signal.SIGKILL)
        counts = events.counts(["Agent-action"])  # a new process, sent the texts it asks for
        assert counts.matches[0] > 0
        assert search_workers.call(events.revision, search_workers.store_stats)["pid"] != stats["pid"]
    finally:
        search_workers.configure_search(-1)
        search_workers.drop_search_processes()


def test_a_source_key_names_schema_sidecar_and_text():
    text = events_text(MADE_UP_ROWS)
    one = make_source("a_events.tsv", text, {"x": {"HED": "Red"}}, "8.4.0")
    assert one.key == make_source("b_events.tsv", text, {"x": {"HED": "Red"}}, "8.4.0").key
    assert one.key != make_source("a_events.tsv", text, {"x": {"HED": "Blue"}}, "8.4.0").key
    assert one.key != make_source("a_events.tsv", text, {"x": {"HED": "Red"}}, "8.3.0").key
    assert one.key != make_source("a_events.tsv", text + "7.0\t0.5\tgo\tn/a\tn/a\n", {"x": {"HED": "Red"}},
                                  "8.4.0").key
    # Two files of one text and sidecar share a key: assembled once, each answered under its own path.
    assert make_source("b_events.tsv", text, {"x": {"HED": "Red"}}, "8.4.0").path == "b_events.tsv"


def test_a_task_larger_than_the_store_is_searched_a_file_at_a_time(made_up):
    events = _events(made_up)
    expected = events.counts(["Sensory-event", "Participant-response"])
    store().clear()
    bound = store().max_events
    store().max_events = 8  # fewer than two files' events
    try:
        first = events.counts(["Sensory-event", "Participant-response"])
        again = events.counts(["Red"])  # files let go meanwhile: their texts sent again, assembled again
        rows = list(events.rows(["Sensory-event"]))
    finally:
        store().max_events = bound
    assert first.to_dict() == expected.to_dict()
    assert again.matches[0] > 0 and len(rows) == expected.matches[0]
    assert store().assembled > len(events.sources)
