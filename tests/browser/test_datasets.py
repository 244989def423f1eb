"""A dataset project in the browser: upload, annotate all with live progress, correct a level, download its sidecar.

The dataset is a small synthetic BIDS folder (two subjects, three categorical columns, seven levels) whose
sidecar describes the levels but has no HED, as a lab starts from. Progress must reach the open project
page over its websocket: the test marks the window before clicking "Annotate all" and checks the mark is
still there (no reload, no navigation) once every level is done.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from annotations.models import DatasetLevel
from tests.support.datasets import zip_folder

TASK = "faces"
LEVELS = {
    "trial_type": {"face": "A photograph of a face appears at the centre of the screen.",
                   "house": "A photograph of a house appears at the centre of the screen.",
                   "scrambled": "A scrambled image appears at the centre of the screen."},
    "response_hand": {"left": "The participant presses the left button.",
                      "right": "The participant presses the right button."},
    "cue": {"visual": "A visual cue precedes the image.", "auditory": "A tone precedes the image."},
}
N_LEVELS = sum(len(levels) for levels in LEVELS.values())
CORRECTED = "Sensory-event, Visual-presentation, (Image, Face)"

# Records every data-done value #dataset-counts shows, so the test can check progress came in steps.
RECORD_PROGRESS = """() => {
  window.__doneSeen = [];
  const note = () => {
    const el = document.getElementById('dataset-counts');
    const done = el && el.dataset.done;
    if (done !== undefined && window.__doneSeen[window.__doneSeen.length - 1] !== done) window.__doneSeen.push(done);
  };
  note();
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


def make_dataset(root: Path) -> Path:
    """A two-subject BIDS folder with one task; its sidecar has descriptions and levels, no HED."""
    root.mkdir()
    (root / "dataset_description.json").write_text(json.dumps(
        {"Name": "Faces (synthetic)", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}), encoding="utf-8")
    sidecar = {column: {"Description": f"The {column.replace('_', ' ')} of the trial.", "Levels": levels}
               for column, levels in LEVELS.items()}
    (root / f"task-{TASK}_events.json").write_text(json.dumps(sidecar, indent=2), encoding="utf-8")
    trials = [("face", "left", "visual"), ("house", "right", "auditory"), ("scrambled", "left", "auditory"),
              ("face", "right", "visual"), ("house", "left", "visual"), ("scrambled", "right", "auditory")]
    for sub in ("01", "02"):
        folder = root / f"sub-{sub}" / "eeg"
        folder.mkdir(parents=True)
        lines = ["onset\tduration\ttrial_type\tresponse_hand\tcue"]
        lines += [f"{1.5 * n + 1:.1f}\t0.5\t{t}\t{h}\t{c}" for n, (t, h, c) in enumerate(trials)]
        (folder / f"sub-{sub}_task-{TASK}_events.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_dataset_upload_annotate_live_correct_and_download(page, live_url, login, reviewer, tmp_path) -> None:
    archive = zip_folder(make_dataset(tmp_path / "faces"), tmp_path / "faces.zip", top="faces")
    page.add_init_script("document.addEventListener('htmx:wsOpen', () => "
                         "{ document.documentElement.setAttribute('data-ws-open', 'true'); });")
    login(page, "rev", "pw-rev-12345")  # a reviewer: corrects the level below

    # Upload: the project page lists every level, none annotated yet.
    page.goto(f"{live_url}/datasets/")
    page.set_input_files("#dataset-upload input[name=files]", str(archive))
    page.fill("#dataset-upload input[name=name]", "Faces study")
    page.click("#dataset-upload-submit")
    expect(page).to_have_url(re.compile(r"/datasets/[0-9a-f-]{36}/$"))
    project_url = page.url
    counts = page.locator("#dataset-counts")
    expect(counts).to_have_attribute("data-total", str(N_LEVELS))
    expect(counts).to_have_attribute("data-done", "0")
    rows = page.locator("tr[id^='level-']")
    expect(rows).to_have_count(N_LEVELS)
    expect(page.locator("tr[id^='level-'][data-status='pending']")).to_have_count(N_LEVELS)

    # Annotate all: the page stays, and the counts and rows change as the socket pushes them.
    page.wait_for_selector("html[data-ws-open=true]", state="attached")
    page.evaluate("window.__marker = 'same page'")
    page.evaluate(RECORD_PROGRESS)
    page.click("#annotate-all")
    expect(page.locator("#dataset-flash")).to_contain_text(f"Annotating {N_LEVELS} level(s)")
    expect(counts).to_have_attribute("data-done", str(N_LEVELS), timeout=90_000)
    expect(counts).to_have_attribute("data-status", "done")
    seen = [int(n) for n in page.evaluate("window.__doneSeen")]
    assert seen == sorted(seen) and seen[0] == 0 and seen[-1] == N_LEVELS, seen
    assert any(0 < n < N_LEVELS for n in seen), f"no progress between none and all: {seen}"
    # Each level's row is pushed too (an htmx out-of-band <tr>), without a reload.
    finished = page.locator("tr[id^='level-'][data-status='valid'], tr[id^='level-'][data-status='invalid']")
    expect(finished, "level rows were not updated over the websocket").to_have_count(N_LEVELS)
    assert page.evaluate("window.__marker") == "same page", "the page reloaded or navigated"
    assert page.url == project_url

    # Correct one level on its run page with the review tools.
    level = DatasetLevel.objects.get(column__task__project__name="Faces study", column__name="trial_type",
                                     value="face")
    row = page.locator(f"#level-{level.pk}")
    row.get_by_role("link", name=re.compile("^(Review|Run)$")).click()
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f-]{36}/"))
    run_url = page.url
    correction = page.locator("textarea[name=hed]")
    correction.fill(CORRECTED)
    with page.expect_response(lambda r: r.request.method == "POST" and "/correct/" in r.url) as answer:
        page.get_by_role("button", name="Save correction").click()
    assert answer.value.ok, answer.value.status  # a refused (invalid) correction is answered 4xx
    assert page.url == run_url

    # The project page shows the level reviewed, with the correction.
    page.goto(project_url)
    expect(page.locator(f"#level-{level.pk}")).to_have_attribute("data-status", "reviewed")
    expect(page.locator(f"#level-{level.pk} .ds-hed")).to_contain_text("Face")

    # The task's sidecar page previews it, and the downloaded events.json carries it.
    page.goto(f"{project_url}tasks/{TASK}/sidecar/")
    # Composed into the task's sidecar: the correction is the event's group, its modifiers nested in it.
    expect(page.locator("#sidecar-preview")).to_contain_text("(Sensory-event, Visual-presentation, (Image, Face)")
    with page.expect_download() as download:
        page.click("#download-json")
    assert download.value.suggested_filename == f"task-{TASK}_events.json"
    sidecar = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert sidecar["trial_type"]["HED"]["face"].startswith("(" + CORRECTED)
    assert sidecar["trial_type"]["Levels"]["face"] == LEVELS["trial_type"]["face"]
