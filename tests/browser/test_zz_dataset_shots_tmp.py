"""Temporary (deleted after use): screenshots of the dataset pages into /tmp/shots/."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from tests.datasets.helpers import DATA, strip_hed, zip_folder

SHOTS = Path("/tmp/shots")
WIDTHS = (1280, 375)


def shoot(page, name: str, *, full: bool = True) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"datasets-{name}-{width}.png"), full_page=full)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_dataset_shots(page, live_url, login, reviewer, tmp_path) -> None:
    SHOTS.mkdir(exist_ok=True)
    import shutil

    folder = tmp_path / "ds"
    shutil.copytree(DATA / "eeg_ds004106s_hed", folder)
    for sidecar in folder.glob("*_events.json"):
        sidecar.write_text(json.dumps(strip_hed(json.loads(sidecar.read_text())), indent=2))
    archive = zip_folder(folder, tmp_path / "eeg_ds004106s_hed.zip")
    login(page, "rev", "pw-rev-12345")
    page.goto(f"{live_url}/datasets/")
    shoot(page, "list-empty")
    page.set_input_files("#dataset-upload input[name=files]", str(archive))
    page.click("#dataset-upload-submit")
    expect(page).to_have_url(re.compile(r"/datasets/[0-9a-f-]{36}/$"))
    project_url = page.url
    shoot(page, "project-before", full=False)
    page.click("#annotate-all")
    page.wait_for_function("() => { const c = document.getElementById('dataset-counts');"
                           " return c && +c.dataset.done >= 4 && c.dataset.status === 'annotating'; }",
                           timeout=60_000)
    shoot(page, "project-midrun", full=False)
    expect(page.locator("#dataset-counts")).to_have_attribute("data-status", "done", timeout=120_000)
    shoot(page, "project-after-live", full=False)
    page.reload()
    shoot(page, "project-after")
    page.goto(f"{live_url}/datasets/")
    shoot(page, "list")
    page.goto(f"{project_url}tasks/GuardDuty/sidecar/")
    shoot(page, "sidecar")
