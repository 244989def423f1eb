"""One status and a fix where the error is, in the browser: the header, the filters and the API give the same
states; the level page shows the issue that sent the lab there, and saving a correction updates its rows."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from annotations.datasets import services
from annotations.datasets.results import refresh_sidecar
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from bidsdata.archive import read_uploads

EVENTS = "onset\tduration\tcue\n1\tn/a\tgo\n2\tn/a\tstop\n3\tn/a\tgo\n"
GOOD = "Sensory-event, Visual-presentation, Experimental-stimulus, (Green, Circle)"
FIX = "Sensory-event, Visual-presentation, Experimental-stimulus, (Red, Square)"
DESCRIBED = {"cue": {"Levels": {"go": "A green circle tells the participant to move.",
                                "stop": "A red square tells the participant to stay still."}}}


def _project(user, name: str, sidecar: dict, runs: dict[str, tuple[str, str, bool]]):
    files = read_uploads([("sub-01_task-t_events.tsv", EVENTS.encode()),
                          ("task-t_events.json", json.dumps(sidecar).encode())])
    project = services.import_dataset(user=user, files=files, name=name)
    for value, (status, hed, valid) in runs.items():
        level = DatasetLevel.objects.get(column__task__project=project, value=value)
        [run] = services.create_level_sessions(project, [level], user=user)
        AnnotationSession.objects.filter(pk=run.pk).update(status=status, is_valid=valid, final_annotation=hed,
                                                           machine_annotation=hed)
    refresh_sidecar(project, project.tasks.get())
    return project


def test_header_filters_and_api_agree_and_the_level_page_fixes_its_issue(page, live_url, login, user) -> None:
    valid_run = (SessionStatus.SUCCEEDED, GOOD, True)
    undescribed = _project(user, "undescribed", {}, {"go": valid_run, "stop": valid_run})
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}{undescribed.get_absolute_url()}")
    header_valid = int(re.match(r"\d+", page.locator("#summary-valid").inner_text()).group())
    filter_valid = int(page.locator("#count-valid .ds-count").inner_text())
    filter_needs = int(page.locator("#count-needs_description .ds-count").inner_text())
    api = page.evaluate(f"fetch('/api/datasets/{undescribed.pk}/').then(r => r.json())")["progress"]
    assert header_valid == filter_valid == api["states"]["valid"] == api["valid"] == 0
    assert filter_needs == api["states"]["needs_description"] == 2
    expect(page.locator("#summary-needs_description")).to_have_text("2 need a description")

    broken = _project(user, "broken", DESCRIBED, {"go": valid_run,
                                                  "stop": (SessionStatus.INVALID, "Not-a-real-tag-xyz", False)})
    stop = DatasetLevel.objects.get(column__task__project=broken, value="stop")
    page.goto(f"{live_url}/datasets/{broken.pk}/levels/{stop.pk}/")
    expect(page.locator("#level-issues [data-code='MISSING_HED']")).to_be_visible()
    row = page.locator("#level-rows tr[data-line='3']")
    expect(row).to_have_attribute("data-ok", "false")
    page.fill("#level-hed", FIX)
    page.click("#level-correct-save")
    expect(page.locator(".message--success")).to_contain_text("Correction saved")
    # Validated again in the background; the section asks until the new result is stored.
    expect(page.locator("#level-fix")).to_have_attribute("data-pending", "false", timeout=60_000)
    expect(page.locator("#level-rows tr[data-line='3']")).to_have_attribute("data-ok", "true")
    expect(page.locator("#level-issues")).to_have_count(0)
