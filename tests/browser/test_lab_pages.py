"""The lab's pages in the browser: no sideways scroll at 375 px, no CSP error while a job runs live, forms that
show their text, tag suggestions that close and never take a click meant for Save, reviewers without edit forms.

The project is stored directly (services.import_dataset, the test database the server shares) with a task
name far longer than any screen is wide; every event and level name is made up.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from playwright.sync_api import expect

from annotations.datasets import services
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject, Revision
from bidsdata.archive import read_uploads
from tests.support.reviews import INVALID_HED, make_session

LONG_TASK = "averyveryverylongtasknamethatnobodywouldeverwrapbyhandwithoutbreaks"
LONG_DESCRIPTION = ("A small green triangle slides in from the left edge of the screen, stops at the centre, "
                    "turns slowly clockwise for two seconds, then fades out while a soft chime plays twice and "
                    "the participant keeps their eyes on the fixation dot below it.")
LEVELS = {"glyph": {"triangle": LONG_DESCRIPTION, "square": "A blue square appears at the centre."},
          "answer_side": {"leftward": "The participant presses the left key.",
                          "rightward": "The participant presses the right key."}}
N_LEVELS = sum(len(v) for v in LEVELS.values())
SHOTS = Path(os.environ.get("HEDIT_SHOTS", "/tmp/shots"))

# Every console message and page error, kept on the window across htmx swaps (not across navigations).
RECORD_CSP = "window.__csp = []; document.addEventListener('securitypolicyviolation', e => " \
             "window.__csp.push(e.violatedDirective + ' ' + (e.sample || '') + ' ' + e.sourceFile));"
CORRECTED = "Sensory-event, Visual-presentation, (Image, Face)"


def make_project(owner) -> DatasetProject:
    sidecar = {column: {"Description": f"The {column.replace('_', ' ')} of the trial.", "Levels": levels}
               for column, levels in LEVELS.items()}
    rows = ["onset\tduration\tglyph\tanswer_side"]
    rows += [f"{n * 1.5 + 1:.1f}\t0.5\t{g}\t{s}" for n, (g, s) in
             enumerate([("triangle", "leftward"), ("square", "rightward"), ("triangle", "rightward")])]
    files = read_uploads([
        ("dataset_description.json", json.dumps({"Name": "made up", "BIDSVersion": "1.8.0",
                                                 "HEDVersion": "8.4.0"}).encode()),
        (f"sub-01_task-{LONG_TASK}_events.tsv", ("\n".join(rows) + "\n").encode()),
        (f"task-{LONG_TASK}_events.json", json.dumps(sidecar).encode()),
    ])
    return services.import_dataset(user=owner, files=files, name="lab.zip")


# The elements that reach past the viewport's right edge, innermost first: what to fix when a page is too wide.
WIDE_ELEMENTS = """() => Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-wrap, pre'))
  .slice(-4).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className)"""


def scroll_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_live_job_has_no_csp_error_and_no_page_scrolls_sideways(page, live_url, login, user) -> None:
    project = make_project(user)
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.add_init_script("document.addEventListener('htmx:wsOpen', () => "
                         "{ document.documentElement.setAttribute('data-ws-open', 'true'); });")
    login(page, "ann", "pw-ann-12345")
    project_url = f"{live_url}{project.get_absolute_url()}"
    page.goto(project_url)
    page.wait_for_selector("html[data-ws-open=true]", state="attached")
    page.evaluate(RECORD_CSP)

    # The job, watched live: counts, rows and the quality panel are swapped in; none may break the CSP.
    page.click("#annotate-all")
    counts = page.locator("#dataset-counts")
    expect(counts).to_have_attribute("data-done", str(N_LEVELS), timeout=90_000)
    expect(counts).to_have_attribute("data-status", "done")
    finished = page.locator("tr[id^='level-'][data-status='valid'], tr[id^='level-'][data-status='invalid']")
    expect(finished).to_have_count(N_LEVELS)
    expect(page.locator(f"#quality-line-{LONG_TASK}")).to_be_attached()
    violations = page.evaluate("window.__csp")
    refused = [m for m in console if "Content Security Policy" in m]
    assert not violations and not refused, (violations, refused)

    # A level's run followed live on its own page: steps and status are pushed there too.
    level = DatasetLevel.objects.get(column__task__project=project, value="triangle")
    page.goto(f"{project_url}levels/{level.pk}/")
    page.get_by_role("button", name="Annotate again").click()
    rerun = AnnotationSession.objects.filter(dataset_level=level).latest("created_at")
    page.goto(f"{live_url}/sessions/{rerun.pk}/")
    page.evaluate(RECORD_CSP)
    expect(page.locator("#session-status")).to_have_attribute(
        "data-status", re.compile("succeeded|invalid|failed"), timeout=60_000)
    page.wait_for_load_state("networkidle")
    violations = page.evaluate("window.__csp")
    refused = [m for m in console if "Content Security Policy" in m]
    assert not violations and not refused, (violations, refused)

    # No page scrolls sideways, on a phone or a desktop, whatever the task's name.
    pages = {"project": project_url, "sidecar": f"{project_url}tasks/{LONG_TASK}/sidecar/",
             "level": f"{project_url}levels/{level.pk}/", "run": f"{live_url}/sessions/{rerun.pk}/"}
    wide = {}
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        for name, url in pages.items():
            page.goto(url)
            page.wait_for_load_state("networkidle")
            shoot(page, f"{name}-{width}")
            if scroll_width(page) > width:
                wide[(name, width)] = (scroll_width(page), page.evaluate(WIDE_ELEMENTS))
    assert not wide, f"pages scroll sideways: {wide}"
    page.goto(pages["sidecar"])
    download = page.locator("#download-json")
    box = download.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375, f"the download button is cut off: {box}"


def test_a_level_description_box_shows_its_whole_text(page, live_url, login, user) -> None:
    project = make_project(user)
    level = DatasetLevel.objects.get(column__task__project=project, value="triangle")
    login(page, "ann", "pw-ann-12345")
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_url}{project.get_absolute_url()}")
        box = page.locator(f"#desc-{level.pk}")
        expect(box).to_have_value(LONG_DESCRIPTION)
        sizes = box.evaluate("""e => ({scroll: e.scrollHeight, client: e.clientHeight, width: e.offsetWidth,
                                       cell: e.closest('td').clientWidth})""")
        assert sizes["scroll"] <= sizes["client"] + 2, f"the text is cut at {width} px: {sizes}"
        assert sizes["width"] >= sizes["cell"] * 0.8, f"the box is narrower than its cell at {width} px: {sizes}"


def test_tag_suggestions_close_on_escape_and_outside_and_never_take_save(page, live_url, login, user,
                                                                         reviewer) -> None:
    session = make_session(user, description="A face appears on the screen", annotation=INVALID_HED,
                           is_valid=False, status="invalid")
    login(page, "rev", "pw-rev-12345")
    page.goto(f"{live_url}/sessions/{session.pk}/")
    editor = page.locator("#correction-hed")
    suggestions = page.locator("#tag-suggestions")
    editor.fill("")
    editor.press_sequentially("Sensory-event, Visual-presentation, (Image, Fa")
    expect(suggestions.locator(".tag-suggestion").first).to_be_visible()
    editor.press("Escape")
    expect(suggestions).to_be_hidden()
    expect(editor).to_be_focused()

    # Typing opens it again; a click outside closes it.
    editor.press_sequentially("c")
    expect(suggestions.locator(".tag-suggestion[data-tag=Face]")).to_be_visible()
    page.locator("#review-title").click()
    expect(suggestions).to_be_hidden()

    # Open, it never lies over the form's buttons, and a click on Save saves.
    editor.fill("Sensory-event, Visual-presentation, (Image, )")
    editor.press("End")
    editor.press("ArrowLeft")
    editor.press_sequentially("Face")  # the last tag typed inside its group: the list is open on a valid text
    expect(editor).to_have_value(CORRECTED)
    expect(page.locator("#correction-check .validation-result")).to_have_attribute("data-valid", "true")
    expect(suggestions.locator(".tag-suggestion").first).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#correction-form").screenshot(path=str(SHOTS / "correction-suggestions-1280.png"))
    list_box, save_box = suggestions.bounding_box(), page.locator("#correction-submit").bounding_box()
    assert list_box["y"] + list_box["height"] <= save_box["y"], (list_box, save_box)
    page.click("#correction-submit")
    expect(page.locator("#revision-list [data-author=rev] .revision__after")).to_have_text(CORRECTED)
    assert Revision.objects.get(session=session).after == CORRECTED
