"""Value columns inside their events: each level carries the columns its rows fill, and a few stray rows
without an event do not keep a column beside every event (where rows with two events fail hedtools' checks)."""

from __future__ import annotations

from bidsdata.composition.nesting import nestable
from bidsdata.composition.rows import EventRows
from bidsdata.composition.tags import names
from tests.bidsdata.composition.conftest import VERSION, composed_sidecar, task_of, verdicts

# One value column per kind of event (a regressor filled only on its own event's rows), as labs write them.
PER_KIND = (
    "onset\tduration\tkind\twin_size\tloss_size\n"
    "1.0\t0.5\twin_size\t2.5\tn/a\n"
    "3.0\t0.5\tloss_size\tn/a\t-1.0\n"
    "5.0\t0.5\twin_size\t0.5\tn/a\n"
    "7.0\t0.5\tfiller\tn/a\tn/a\n"
    "9.0\t0.5\tloss_size\tn/a\t-3.0\n"
)
SAME_EVENT = "Sensory-event, Experimental-stimulus, Visual-presentation, (Square, White)"
PER_KIND_HED = {"kind": {"win_size": SAME_EVENT, "loss_size": SAME_EVENT, "filler": SAME_EVENT},
                "win_size": "(Parameter-label/win, Parameter-value/#)",
                "loss_size": "(Parameter-label/loss, Parameter-value/#)"}


def test_each_level_references_only_the_columns_its_rows_fill(tmp_path):
    task = task_of(PER_KIND)
    sidecar, _ = composed_sidecar(task, PER_KIND_HED, PER_KIND)
    levels = sidecar["kind"]["HED"]
    assert "{win_size}" in levels["win_size"] and "{loss_size}" not in levels["win_size"]
    assert "{loss_size}" in levels["loss_size"] and "{win_size}" not in levels["loss_size"]
    assert "{" not in levels["filler"], "a level whose rows fill neither column carries neither"
    errors, checks, rows = verdicts(sidecar, PER_KIND, tmp_path)
    assert errors == [] and checks == []
    assert "Parameter-value/2.5" in rows[0] and "Parameter-value/-1.0" in rows[1]


def _rows(stray: int, total: int = 100) -> EventRows:
    """*total* rows with a contrast value, *stray* of them logged without their event type."""
    lines = "".join(f"{i}.0\t0.5\t{'n/a' if i < stray else ('tone' if i % 2 else 'flash')}\t{i * 0.01:.2f}\n"
                    for i in range(total))
    return EventRows.read({"sub-01_events.tsv": "onset\tduration\tstim\tcontrast\n" + lines})


HOLDERS = {"stim": {"tone": "(Sensory-event, Experimental-stimulus, Auditory-presentation, Tone)",
                    "flash": "(Sensory-event, Experimental-stimulus, Visual-presentation, (Square, White))"},
           "contrast": "(Parameter-label/contrast, Parameter-value/#)"}


def test_a_stray_row_without_an_event_does_not_keep_a_column_out_of_its_event():
    known = names(VERSION)
    assert nestable("contrast", "stim", HOLDERS, _rows(0), known)
    assert nestable("contrast", "stim", HOLDERS, _rows(1), known), "one row in a hundred without its event type"
    assert not nestable("contrast", "stim", HOLDERS, _rows(10), known), "a tenth of the rows is no stray"


def test_a_code_column_said_only_by_names_is_asked_about_despite_a_stray_row():
    """Codes 0/1 annotated alike are told apart only by their names: asked about, even where one row of a
    hundred was logged without the main event's type (it then has no event of its own to lose)."""
    lines = "".join(f"{i}.0\t0.5\t{'n/a' if i == 0 else ('tone' if i % 2 else 'flash')}\t{i % 2}\t0.{i + 10}\n"
                    for i in range(100))
    events = "onset\tduration\tevent_type\tflag\treaction_time\n" + lines
    annotations = {"event_type": {"tone": "Sensory-event, Experimental-stimulus, Auditory-presentation, Tone",
                                  "flash": "Sensory-event, Experimental-stimulus, Visual-presentation, Square"},
                   "flag": {"0": "(Agent-action, Participant-response, Halt)",
                            "1": "(Agent-action, Participant-response, Halt)"},
                   "reaction_time": "(Delay/# s, (Agent-action, Participant-response, Press))"}
    sidecar, composition = composed_sidecar(task_of(events), annotations, events)
    assert "HED" not in sidecar.get("flag", {}), sidecar.get("flag")
    assert {(n.column, n.level) for n in composition.notes if "told apart only by their names" in n.reason} \
        == {("flag", "0"), ("flag", "1")}
