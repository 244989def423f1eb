"""A code column that only encodes what word columns say (bidsdata/composition/encoded.py). Made-up data."""

from __future__ import annotations

from bidsdata.composition.encoded import encoded_by
from bidsdata.composition.rows import EventRows
from bidsdata.pipeline import sidecar_for_task
from tests.bidsdata.composition.conftest import VERSION, task_of

ROWS = [("glow", "big", "11"), ("glow", "small", "12"), ("tap", "n/a", "50"), ("glow", "big", "11"),
        ("tap", "n/a", "50"), ("glow", "small", "12")]


def events(rows=ROWS) -> str:
    return "onset\tduration\tkind\tsize\tcode\n" + "".join(
        f"{i + 1}.0\t0\t{k}\t{s}\t{c}\n" for i, (k, s, c) in enumerate(rows))


def test_codes_standing_one_to_one_for_the_words_are_an_encoding() -> None:
    rows = EventRows.read({"e.tsv": events()})
    assert encoded_by("code", ["kind", "size"], rows, {})
    # A code that tells two things of one combination apart says more than the words.
    finer = EventRows.read({"e.tsv": events([*ROWS, ("glow", "big", "13")] * 2)})
    assert not encoded_by("code", ["kind", "size"], finer, {})
    # ...unless the lab describes the two codes alike.
    assert encoded_by("code", ["kind", "size"], finer, {"11": "A big glow.", "13": "A big glow."})
    # A code that spans events the words tell apart (a glow and a tap) marks something of its own.
    spanning = EventRows.read({"e.tsv": events([("glow", "big", "11"), ("tap", "n/a", "11"), ("glow", "small", "12"),
                                                ("glow", "small", "12")])})
    assert not encoded_by("code", ["kind", "size"], spanning, {})
    # A code on a row no word column tells of is the only word there.
    alone = EventRows.read({"e.tsv": events([*ROWS, ("n/a", "n/a", "99")])})
    assert not encoded_by("code", ["kind", "size"], alone, {})


def test_the_encoding_column_gets_no_hed_and_nothing_is_asked_of_it() -> None:
    text = events()
    task = task_of(text, {"kind": {"Levels": {"glow": "A circle glows.", "tap": "The participant taps a key."}}})
    annotations = {"kind": {"glow": "Sensory-event, Visual-presentation, Circle",
                            "tap": "Agent-action, (Press, Keyboard-key)"},
                   "size": {"big": "Large", "small": "Small"},
                   "code": {"11": "Label/eleven", "12": "Label/twelve", "50": "Label/fifty"}}
    result = sidecar_for_task(task, annotations, {"sub-01_events.tsv": text}, VERSION)
    assert "HED" not in result.sidecar.get("code", {})
    assert not [m for m in result.missing if m.column == "code"]
    assert {d.level for d in result.dropped if d.column == "code" and d.redundant} == {"11", "12", "50"}
