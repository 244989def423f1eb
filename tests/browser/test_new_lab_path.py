"""A new lab's path in the browser, on two made-up datasets (tests/support/made_up.py): one with a marker column of
hundreds of distinct strings, one whose levels are told apart only by names.

Upload, Annotate all, answer a question in place, open a level from the sidecar page and fix it, download the zip:
every question is answerable or dismissable where it is asked, the verdict says validity beside the rows annotated
and the levels that need a description, and the whole walk has no console error (a Content-Security-Policy
refusal included), no 404 and no 500. Screenshots at 1280 and 375 px go to ``HEDIT_SHOTS``
(``/work/notes/shots-i35ui`` by default). Waits are on page conditions only.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from pathlib import Path

from playwright.sync_api import expect

from annotations.models import DatasetLevel
from tests.support.made_up import marker_dataset, named_dataset, zipped

SHOTS = Path(os.environ.get("HEDIT_SHOTS", "/work/notes/shots-i35ui"))
WS_OPEN = ("document.addEventListener('htmx:wsOpen', () => "
           "{ document.documentElement.setAttribute('data-ws-open', 'true'); });")


class Watch:
    """Every console error, page error and 404/5xx response of the walk. The one refused correction the walk
    submits on purpose answers 400 (bad input, its form shown again), which Chrome logs as a failed load: that
    one, and only as many as were submitted, is expected."""

    def __init__(self, page) -> None:
        self.problems: list[str] = []
        self.refused = 0
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("response", lambda r: self.problems.append(f"{r.status} {r.request.method} {r.url}")
                if r.status == 404 or r.status >= 500 else None)

    def _console(self, message) -> None:
        if message.type != "error":
            return
        if "status of 400" in message.text and self.refused:
            self.refused -= 1
            return
        self.problems.append(f"console {message.type}: {message.text}")

    def assert_clean(self, where: str) -> None:
        assert not self.problems, f"{where}: {self.problems}"


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_load_state("networkidle")
        # caret="initial": Playwright's default hides the caret with a style element of its own, which the
        # Content-Security-Policy refuses (and logs) like any inline style.
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True, caret="initial")
    page.set_viewport_size({"width": 1280, "height": 900})


def upload(page, live_url: str, archive: Path, name: str) -> str:
    page.goto(f"{live_url}/datasets/")
    page.set_input_files("#dataset-upload input[name=files]", str(archive))
    page.fill("#dataset-upload input[name=name]", name)
    page.click("#dataset-upload-submit")
    expect(page).to_have_url(re.compile(r"/datasets/[0-9a-f-]{36}/$"), timeout=60_000)
    expect(page.locator("#next-step")).to_contain_text("Next: Annotate all")
    return page.url


def every_question_answerable(page) -> int:
    questions = page.locator("#questions li.ds-question")
    count = questions.count()
    assert count > 0
    for n in range(count):
        item = questions.nth(n)
        assert item.locator("textarea[name=answer]").count() + item.locator("button[id^=skip-]").count() >= 1, \
            item.inner_text()
    return count


def annotate_all(page) -> None:
    page.wait_for_selector("html[data-ws-open=true]", state="attached")
    page.click("#annotate-all")
    expect(page.locator("#next-step")).to_be_empty()
    counts = page.locator("#dataset-counts")
    expect(counts).to_have_attribute("data-status", "done", timeout=240_000)
    expect(page.locator(".message--job")).to_have_count(0)  # "Annotating N levels" went with the job


def answer_first(page, text: str) -> None:
    question = page.locator("#questions li.ds-question:has(textarea[name=answer])").first
    key = question.get_attribute("id")
    question.locator("textarea").fill(text)
    question.get_by_role("button", name="Answer").click()
    expect(page.locator(f"#{key}[data-answered=true]")).to_contain_text(f"Answered: {text}")
    expect(page.locator("#dataset-counts")).to_have_attribute("data-status", "done", timeout=240_000)


def verdict_of(page, task: str) -> str:
    """The task's verdict once the panel shows the job's sidecar (it is drawn again when the job ends): every row
    annotated."""
    badge = page.locator(f"#verdict-{task}")
    expect(badge).to_have_attribute("data-label", re.compile(r"([\d,]+) of \1 rows annotated"), timeout=60_000)
    return badge.get_attribute("data-label") or ""


def fix_a_level(page, watch: Watch, project_url: str, task: str) -> None:
    page.goto(f"{project_url}tasks/{task}/sidecar/")
    fix = page.locator("a.ds-fix-level")
    if fix.count():
        fix.first.click()
    else:
        page.goto(f"{project_url}#task-{task}")
        page.locator(f"#task-{task} tr[id^=level-] td[data-label=Level] a").first.click()
    expect(page).to_have_url(re.compile(r"/levels/\d+/$"))
    description = page.locator("#level-description").input_value()
    hed = page.locator("#level-hed")
    hed.fill("Sensory-event, Notatagatall")
    expect(page.locator("#level-hed-preview [data-valid=false]")).to_be_visible()  # checked as it is typed
    watch.refused += 1
    page.click("#level-correct-save")
    expect(page.locator("#level-correct .field-error")).to_contain_text("does not validate")
    assert page.locator("#level-description").input_value() == description  # kept
    assert "draft" not in page.locator("#level-correct").inner_text().lower()
    hed.fill("Sensory-event, Experimental-stimulus, Visual-presentation, (Image, Circle)")
    expect(page.locator("#level-hed-preview [data-valid=true]")).to_be_visible()
    page.click("#level-correct-save")
    expect(page.locator(".messages")).to_contain_text("Correction saved")


def download_zip(page, project_url: str) -> dict:
    page.goto(project_url)
    with page.expect_download() as download:
        page.click("#download-zip")
    archive = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert "README_HED.md" in archive.namelist()
    top = next(n for n in archive.namelist() if n.endswith("dataset_description.json"))
    return json.loads(archive.read(top))


def test_a_new_lab_on_a_marker_column_of_hundreds_of_strings(page, live_url, login, user, tmp_path) -> None:
    watch = Watch(page)
    page.add_init_script(WS_OPEN)
    archive = zipped(marker_dataset(tmp_path / "glow", distinct=600), tmp_path / "glow.zip")
    login(page, "ann", "pw-ann-12345")
    project_url = upload(page, live_url, archive, "Glow")
    column = DatasetLevel.objects.filter(column__name="stim_mark").first().column
    assert column.by_pattern and column.levels.count() <= 5  # 600 strings, a few forms
    every_question_answerable(page)
    shoot(page, "marker-uploaded")
    annotate_all(page)
    answer_first(page, "A lantern lights up in one cell of a grid, in the tint the number gives.")
    label = verdict_of(page, "glow")
    assert re.search(r"\d[\d,]* of [\d,]+ rows annotated", label) and "rows pass the event checks" in label, label
    shoot(page, "marker-annotated")
    fix_a_level(page, watch, project_url, "glow")
    shoot(page, "marker-level")
    page.goto(f"{project_url}tasks/glow/sidecar/")
    shoot(page, "marker-sidecar")
    assert download_zip(page, project_url)["HEDVersion"]  # the dataset declared none: the zip says which
    watch.assert_clean("marker dataset")


def test_a_new_lab_on_levels_told_apart_only_by_names(page, live_url, login, user, tmp_path) -> None:
    watch = Watch(page)
    page.add_init_script(WS_OPEN)
    archive = zipped(named_dataset(tmp_path / "blips"), tmp_path / "blips.zip")
    login(page, "ann", "pw-ann-12345")
    project_url = upload(page, live_url, archive, "Blips")
    assert every_question_answerable(page) >= 5  # each named level, and the column
    shoot(page, "named-uploaded")
    annotate_all(page)
    label = verdict_of(page, "blips")
    # Nobody said what the levels mean: never "Valid" alone, the levels that need a description counted.
    assert re.search(r"\d+ of 5 levels need", label) and "30 of 30 rows annotated" in label, label
    assert page.locator("#verdict-blips").get_attribute("data-verdict") != "valid"
    answer_first(page, "A short high beep plays from the left speaker.")
    shoot(page, "named-answered")
    fix_a_level(page, watch, project_url, "blips")
    page.goto(f"{project_url}tasks/blips/sidecar/")
    expect(page.locator("#sidecar-verdict")).to_contain_text("need")
    shoot(page, "named-sidecar")
    assert download_zip(page, project_url)["HEDVersion"] == "8.4.0"
    watch.assert_clean("named dataset")
