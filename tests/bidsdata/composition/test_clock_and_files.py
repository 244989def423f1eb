"""Two things a lab logs beside an event: the moments other parts of the trial happened (times on the
recording's clock, which a sidecar cannot place), and the picture shown after a response (an event of its
own). Made-up tasks only."""

from __future__ import annotations

from bidsdata.composition.clock import on_the_clock
from tests.bidsdata.composition.conftest import composed_sidecar, task_of, verdicts

# A press on each row; the lab logged when the cue began (seconds on the recording's clock, a little before the
# press), how long the press took after the cue (a response time) and which picture was shown after the press.
PRESSES = "onset\tduration\tkey\tcue_start\tresp_time\tshown\n" + "".join(
    f"{10.0 * i + 3.2:.1f}\t0\t{'left' if i % 2 else 'right'}\t{10.0 * i + 1.0:.1f}\t{0.4 + i / 100:.2f}\t"
    f"{'happy' if i % 3 else 'sad'}.png\n" for i in range(12))
PRESS_HED = {
    "key": {"left": "Agent-action, Participant-response, (Press, (Keyboard-key, Left))",
            "right": "Agent-action, Participant-response, (Press, (Keyboard-key, Right))"},
    "cue_start": "(Parameter-label/cue_start, Parameter-value/# s)",
    "resp_time": "(Parameter-label/resp_time, Parameter-value/# s)",
    "shown": "(Image, Pathname/#)",
}
SIDECAR = {"shown": {"Description": "The picture shown as feedback after the press."}}


def _files(text: str) -> list[list[dict[str, str]]]:
    header, *lines = [line.split("\t") for line in text.strip().split("\n")]
    return [[dict(zip(header, line, strict=True)) for line in lines]]


class TestClockTimes:
    def test_times_on_the_recordings_clock_are_told_from_durations(self):
        assert on_the_clock(_files(PRESSES), "cue_start")
        assert not on_the_clock(_files(PRESSES), "resp_time"), "a response time is no moment on the clock"

    def test_milliseconds_on_the_clock_count_too(self):
        text = "onset\tcue_ms\n" + "".join(f"{5.0 * i:.1f}\t{5000.0 * i - 800:.0f}\n" for i in range(1, 9))
        assert on_the_clock(_files(text), "cue_ms")

    def test_trial_numbers_are_not_on_the_clock(self):
        text = "onset\ttrial\n" + "".join(f"{30.0 * i:.1f}\t{i}\n" for i in range(1, 20))
        assert not on_the_clock(_files(text), "trial")

    def test_a_clock_column_is_left_out_with_a_note(self, tmp_path):
        sidecar, composition = composed_sidecar(task_of(PRESSES, SIDECAR), PRESS_HED, PRESSES)
        assert "HED" not in sidecar.get("cue_start", {})
        assert "resp_time" in str(sidecar)
        notes = [n for n in composition.notes if n.column == "cue_start"]
        assert notes and "rows of their own" in notes[0].fix and "cue_start" in notes[0].fix
        errors, checks, _ = verdicts(sidecar, PRESSES, tmp_path)
        assert errors == [] and checks == []


class TestShownFiles:
    def test_a_picture_named_on_a_response_row_is_an_event_of_its_own(self, tmp_path):
        sidecar, _ = composed_sidecar(task_of(PRESSES, SIDECAR), PRESS_HED, PRESSES)
        errors, checks, rows = verdicts(sidecar, PRESSES, tmp_path)
        assert errors == [] and checks == []
        assert "Sensory-event" in rows[0] and "Agent-action" in rows[0]
        assert "Visual-presentation" in rows[0] and "Feedback" in rows[0]  # the column's description says so
        assert "Pathname/sad.png" in rows[0]

    def test_a_picture_on_a_display_row_stays_what_the_display_shows(self, tmp_path):
        shows = "onset\tduration\tstim\tpic\n" + "".join(
            f"{2.0 * i:.1f}\t0.5\tface\t{'a' if i % 2 else 'b'}.png\n" for i in range(6))
        hed = {"stim": {"face": "Sensory-event, Experimental-stimulus, Visual-presentation, Face"},
               "pic": "(Image, Pathname/#)"}
        sidecar, _ = composed_sidecar(task_of(shows), hed, shows)
        errors, checks, rows = verdicts(sidecar, shows, tmp_path)
        assert errors == [] and checks == []
        assert rows[0].count("Sensory-event") == 1, "one display, one event"


class TestLabDescriptions:
    """What a lab's own words give a level (a time, a role already named) must not cost the task its events."""

    TRIALS = "onset\tduration\tkind\n" + "".join(f"{3.0 * i:.1f}\t1.0\t{'near' if i % 2 else 'far'}\n"
                                                 for i in range(8))

    def test_a_time_group_in_a_level_keeps_the_column_composed(self, tmp_path):
        hed = {"kind": {"near": "Sensory-event, Experimental-stimulus, (Duration/1 s, (Circle, Blue))",
                        "far": "Agent-action, (Delay/2 s, (Press, Keyboard-key))"}}
        sidecar, _ = composed_sidecar(task_of(self.TRIALS), hed, self.TRIALS)
        errors, checks, rows = verdicts(sidecar, self.TRIALS, tmp_path)
        assert errors == [] and checks == []
        assert "Press" in rows[0] and "Circle" in rows[1]  # what the time groups said is kept, in the event
        assert all(h.startswith("(") for h in sidecar["kind"]["HED"].values()), "each level one event group"

    def test_a_role_the_level_names_is_not_added_twice(self, tmp_path):
        hed = {"kind": {"near": "Congruent, Participant-response, Correct-action",
                        "far": "Incongruent, Participant-response, Incorrect-action"}}
        sidecar, _ = composed_sidecar(task_of(self.TRIALS), hed, self.TRIALS)
        errors, checks, rows = verdicts(sidecar, self.TRIALS, tmp_path)
        assert errors == [] and checks == []
        assert all(r.count("Participant-response") == 1 and r.startswith("(Sensory-event") for r in rows)
        assert all(h.startswith("(") for h in sidecar["kind"]["HED"].values()), "each level one event group"

    def test_a_later_event_the_lab_wrote_keeps_its_delay(self, tmp_path):
        later = "(Sensory-event, Visual-presentation, Cue), (Delay/0.5 s, (Agent-action, Participant-response, Press))"
        uploaded = {"kind": {"HED": {"near": later, "far": "Sensory-event, Visual-presentation, Cue, Square"}}}
        task = task_of(self.TRIALS, uploaded)
        hed = {"kind": {lv.value: lv.existing_hed for lv in task.column("kind").levels}}
        sidecar, _ = composed_sidecar(task, hed, self.TRIALS)
        errors, checks, _ = verdicts(sidecar, self.TRIALS, tmp_path)
        assert errors == [] and checks == []
        assert "Delay/0.5 s" in sidecar["kind"]["HED"]["near"], "the lab's later event is kept"
