"""Column roles (bidsdata/composition/roles.py): every row says what kind of event it is (issue 36 item 2)."""

from __future__ import annotations

from bidsdata.pipeline import sidecar_for_task
from tests.bidsdata.composition.conftest import VERSION, task_of, verdicts

# A lamp column; a column of a lone attribute that alone tells of every third row (the lamp is n/a there).
EVENTS = "onset\tduration\tlamp\tfame\n" + "".join(
    f"{i}.0\t0\t{'n/a' if i % 3 == 0 else 'glow'}\t{'famous' if i % 3 == 0 else ('unknown' if i % 2 else 'n/a')}\n"
    for i in range(1, 13))
SIDECAR = {"lamp": {"Levels": {"glow": "A green circle shows."}},
           "fame": {"Levels": {"famous": "A famous face.", "unknown": "An unknown face."}}}
ANNOTATIONS = {"lamp": {"glow": "Sensory-event, Visual-presentation, (Circle, Green)"},
               "fame": {"famous": "Famous", "unknown": "Unfamiliar"}}


def test_a_column_that_alone_tells_of_rows_gives_them_an_event_type(tmp_path) -> None:
    result = sidecar_for_task(task_of(EVENTS, SIDECAR), ANNOTATIONS, {"sub-01_events.tsv": EVENTS}, VERSION,
                              quality_limits={"max_files": 5, "max_rows": 100})
    assert result.composition.roles["fame"] == "event"
    assert result.checked["figures"]["rows_ok"] == 12
    errors, checks, _ = verdicts(result.sidecar, EVENTS, tmp_path)
    assert not errors and not checks
