"""The sense a task presents to, from what the lab's files say when its level names say none: the stimulus
files' kind (sounds, pictures) and the words run together in a BIDS task label."""

from __future__ import annotations

from bidsdata.composition import cues
from bidsdata.composition.rows import EventRows
from tests.bidsdata.composition.conftest import composed_sidecar, task_of

EVENTS = "onset\tduration\ttrial_type\tstim_file\n" + "".join(
    f"{i}.0\t1.0\t{kind}\t{kind}_{i}.{ext}\n" for i, (kind, ext) in enumerate(
        [("calm", "wav"), ("busy", "wav"), ("calm", "wav"), ("busy", "wav")], start=1))
PLAIN = {"trial_type": {"calm": "Sensory-event, Experimental-stimulus", "busy": "Sensory-event, Experimental-stimulus"}}


def test_sound_files_make_the_levels_heard():
    sidecar, _ = composed_sidecar(task_of(EVENTS), PLAIN, EVENTS)
    assert all("Auditory-presentation" in h for h in sidecar["trial_type"]["HED"].values())


def test_picture_files_make_them_seen():
    seen = EVENTS.replace(".wav", ".png")
    sidecar, _ = composed_sidecar(task_of(seen), PLAIN, seen)
    assert all("Visual-presentation" in h for h in sidecar["trial_type"]["HED"].values())


def test_a_task_label_names_its_sense_with_its_words_run_together():
    no_files = "onset\tduration\ttrial_type\n1.0\t1.0\tcalm\n2.0\t1.0\tbusy\n"
    sidecar, _ = composed_sidecar(task_of(no_files, name="auditorysorting"), PLAIN, no_files)
    assert all("Auditory-presentation" in h for h in sidecar["trial_type"]["HED"].values())
    assert cues.label_words("yearlyreview") == [], "no sense word of fewer than five letters is looked for"


def test_media_senses_counts_distinct_files_by_their_extension():
    rows = EventRows.read({"sub-01_events.tsv": EVENTS.replace("busy_2.wav", "busy_2.JPG")})
    assert dict(cues.media_senses(rows.all())) == {"Auditory-presentation": 3, "Visual-presentation": 1}
