"""Screen displays that replace one another become Onset/Offset of what each shows, read from the events
files' order, and only when that order is one every file agrees on. Each sidecar is checked with hedtools."""

from __future__ import annotations

from tests.bidsdata.composition.conftest import composed_sidecar, task_of, verdicts

HEADER = "onset\tduration\tevent_type\tpicture\n"
# A first picture, then trials of blank -> dot -> picture; a press shares the onset of one blank.
ROWS = [("0.5", "intro", "indoor"), ("1.0", "blank", "n/a"), ("1.2", "dot", "n/a"), ("1.5", "house", "indoor"),
        ("2.5", "blank", "n/a"), ("2.5", "press", "n/a"), ("3.0", "dot", "n/a"), ("3.5", "house", "outdoor"),
        ("4.5", "blank", "n/a")]
SIDECAR = {
    "event_type": {"Levels": {
        "intro": "Display a picture of a house at the beginning of the recording.",
        "blank": "Display a gray square to mark the end of the trial.",
        "dot": "Display a green circle to mark the start of a trial.",
        "house": "Display a picture of a house.",
        "press": "The participant presses a button."}},
    "picture": {"Description": "Condition: which kind of house is shown.",
                "Levels": {"indoor": "An indoor scene.", "outdoor": "An outdoor scene."}},
}
# Levels as the annotator gives them one by one: the dot and the blank read as cues from "to mark".
ANNOTATIONS = {
    "event_type": {
        "intro": "Sensory-event, (Visual-presentation, Computer-screen), Experimental-stimulus, (Image, Building), "
                 "Recording",
        "blank": "Sensory-event, (Visual-presentation, Computer-screen), (Intended-effect, Cue), (Square, Gray)",
        "dot": "Sensory-event, (Visual-presentation, Computer-screen), (Intended-effect, Cue), (Circle, Green), "
               "Experimental-trial",
        "house": "Sensory-event, (Visual-presentation, Computer-screen), (Intended-effect, Cue), (Image, Building)",
        "press": "Agent-action, Participant-response, (Press, Push-button)"},
    "picture": {"indoor": "Indoors", "outdoor": "Outdoors"},
}


def _events(rows, duration="n/a"):
    return HEADER + "".join(f"{onset}\t{duration}\t{level}\t{picture}\n" for onset, level, picture in rows)


def _compose(events, tmp_path):
    task = task_of(events, SIDECAR)
    sidecar, composition = composed_sidecar(task, ANNOTATIONS, events)
    return sidecar, composition, verdicts(sidecar, events, tmp_path)


def test_each_display_starts_what_it_shows_and_ends_the_display_before(tmp_path):
    sidecar, _, (errors, checks, rows) = _compose(_events(ROWS), tmp_path)
    assert errors == [] and checks == []  # even the press sharing an onset with a blank is a proper event
    hed = sidecar["event_type"]["HED"]
    defs = sidecar["hed_def_composed"]["HED"]
    blank, dot, house = (hed[level].split(", Onset)")[0].split("Def/")[1].split(",")[0]
                         for level in ("blank", "dot", "house"))
    assert hed["dot"].endswith(f"(Def/{blank}, Offset)")
    assert hed["house"].endswith(f"(Def/{dot}, Offset)")
    assert hed["blank"].endswith(f"(Def/{house}, Offset)")
    assert "Offset" not in hed["intro"]  # the first display replaces nothing
    assert hed["intro"].startswith(f"(Def/{house},")  # it shows what the later pictures show: one display
    shown = defs[dot.lower()]
    assert "(Foreground-view, (Circle, Green))" in shown and "Background-view" in shown
    assert "Sensory-event" in shown and "Visual-presentation" in shown
    assert all(row for row in rows)


def test_the_level_the_factors_describe_is_the_stimulus_whatever_it_marks(tmp_path):
    sidecar, _, _ = _compose(_events(ROWS), tmp_path)
    defs = sidecar["hed_def_composed"]["HED"]
    picture = next(text for text in defs.values() if "Building" in text and "Foreground-view" in text)
    assert "Experimental-stimulus" in picture and "Cue" not in picture
    square = next(text for text in defs.values() if "Square" in text and "Foreground-view" in text)
    assert "Cue" in square  # no factor on the blank's rows: it stays what its description says


def test_no_onsets_when_a_display_follows_different_displays(tmp_path):
    # The first trial starts with a dot after nothing, later dots follow a blank: no one order to write.
    rows = ROWS[2:]  # (this once wrote the first dot twice at one onset: the data's fault, refused as such)
    sidecar, _, (errors, checks, _) = _compose(_events(rows), tmp_path)
    assert errors == [] and checks == []
    assert not any("Onset" in hed for hed in sidecar["event_type"]["HED"].values())


def test_no_onsets_when_the_displays_have_durations_of_their_own(tmp_path):
    sidecar, _, (errors, _, _) = _compose(_events(ROWS, duration="0.5"), tmp_path)
    assert errors == []
    assert not any("Onset" in hed for hed in sidecar["event_type"]["HED"].values())
