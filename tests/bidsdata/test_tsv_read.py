"""The one events reader shares its parse: passes of one pipeline call over the same text read its rows once,
and what it keeps stays within its character budget."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bidsdata import tsv

TEXT = 'onset\tzed\n1.0\t"qa\n1.000\tNaN\n2\t\n'


def test_read_gives_the_rows_records_gives():
    assert list(tsv.read(TEXT)) == tsv.records(TEXT)
    assert tsv.read(TEXT)[2]["zed"] == "n/a"


def test_the_same_text_is_parsed_once():
    text = TEXT + "3\tqb\n"
    assert tsv.read(text) is tsv.read(text)


def test_kept_rows_stay_within_the_budget(monkeypatch):
    monkeypatch.setattr(tsv, "READ_BUDGET", 2 * len(TEXT) + 10)
    texts = [TEXT + f"{n}\tqd\n" for n in range(10, 15)]
    first = tsv.read(texts[0])
    for text in texts[1:]:
        tsv.read(text)
    assert tsv.read(texts[0]) is not first, "the oldest text was let go"
    assert tsv.read(texts[-1]) is tsv.read(texts[-1])


def test_a_text_over_the_budget_is_not_kept(monkeypatch):
    text = TEXT + "4\tqc\n"  # read by no other test: nothing kept of it before
    monkeypatch.setattr(tsv, "READ_BUDGET", 4)
    assert tsv.read(text) is not tsv.read(text)
    assert list(tsv.read(text)) == tsv.records(text)


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", "c"])), min_size=1, max_size=30))
def test_an_event_reads_each_distinct_row_once_and_its_repeats_are_named(cells) -> None:
    cells = sorted(cells, key=lambda c: c[0])
    text = "onset\tcode\n" + "".join(f"{onset}.0\t{code}\n" for onset, code in cells)
    events = tsv.by_onset(tsv.read(text), once=True)
    onsets = dict.fromkeys(o for o, _ in cells)
    assert [[(float(r["onset"]), r["code"]) for r in ev] for ev in events] == [
        list(dict.fromkeys((float(o), c) for o, c in cells if o == onset)) for onset in onsets]
    lines = set(tsv.repeated_event_lines(text))
    twice = {o for o, c in cells if cells.count((o, c)) > 1}
    assert lines == {i + 2 for i, (o, _) in enumerate(cells) if o in twice}
