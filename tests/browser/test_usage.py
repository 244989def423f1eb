"""Using a project's annotations in the browser: the Search tab checks a query as it is typed, runs it, shows
hedtools' counts and rows and downloads every matching row; the Design, Summary and Acceptance tabs; no CSP
error and no sideways scroll at 375 px.

The project is stored directly (import and the job's last step, on the test database the server shares) from
the made-up dataset of tests/bidsdata/usage; screenshots go to ``HEDIT_SHOTS`` (default /tmp/shots).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from playwright.sync_api import expect

from annotations.datasets import results, services
from annotations.usage import acceptance
from bidsdata.archive import read_folder
from tests.bidsdata.usage.hedtools_loop import bare_search, made_up_dataset

SHOTS = Path(os.environ.get("HEDIT_SHOTS", "/tmp/shots"))
RECORD_CSP = "window.__csp = []; document.addEventListener('securitypolicyviolation', e => " \
             "window.__csp.push(e.violatedDirective + ' ' + (e.sample || '') + ' ' + e.sourceFile));"


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_search_a_project_and_download_the_rows(page, live_url, login, user, tmp_path) -> None:
    folder = made_up_dataset(tmp_path / "made_up")
    project = services.import_dataset(user=user, files=read_folder(folder), name="made up")
    results.refresh_project(project)
    acceptance.add_default_rules(project)
    acceptance.create_rule(project, name="Some row is blue", query="Blue", expect="some")
    acceptance.check_now(project, project.tasks.get())
    page.add_init_script(RECORD_CSP)
    login(page, "ann", "pw-ann-12345")

    page.goto(f"{live_url}{project.get_absolute_url()}")
    expect(page.locator("#acceptance-demo")).to_have_attribute("data-failing", "1")  # on the task's card
    page.click("#tab-search")
    box = page.locator("#id_q")
    box.fill("Participant-response\nDef/Go-cond &&")
    bad = page.locator("#query-check [data-ok=false]")
    expect(bad).to_contain_text("at character 15: Parse error in get next token")
    expect(page.locator("#query-check [data-ok=true]")).to_have_count(1)
    box.fill("Participant-response\nDef/Go-cond && ~Red")
    expect(page.locator("#query-check [data-ok=true]")).to_have_count(2)
    page.select_option("#id_task", "demo")
    page.click("#search-button")

    expected = bare_search(folder, "demo", ["Participant-response", "Def/Go-cond && ~Red"])
    totals = [sum(r[i] for rows in expected.values() for r in rows) for i in range(2)]
    cells = page.locator("#search-counts tr[data-task=demo] td.us-match")
    expect(cells).to_have_count(2)
    assert [int(cells.nth(i).get_attribute("data-matches")) for i in range(2)] == totals
    matching = sum(1 for rows in expected.values() for r in rows if any(r))
    expect(page.locator("#rows-table tbody tr")).to_have_count(min(50, matching))
    shoot(page, "search-1280")

    with page.expect_download() as caught:
        page.click("#download-rows")
    download = caught.value
    assert download.suggested_filename == "task-demo_search.tsv"
    with open(download.path(), newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["file", "row", "onset", "Participant-response", "Def/Go-cond && ~Red", "hed"]
    assert len(rows) - 1 == matching
    assert sum(int(r[3]) for r in rows[1:]) == totals[0] and sum(int(r[4]) for r in rows[1:]) == totals[1]

    page.set_viewport_size({"width": 375, "height": 800})
    page.reload()
    expect(page.locator("#rows-table")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shoot(page, "search-375")
    for name, path in [("design", "tasks/demo/design/"), ("summary", "tasks/demo/summary/"),
                       ("acceptance", "acceptance/")]:
        for width in (1280, 375):
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{live_url}{project.get_absolute_url()}{path}")
            expect(page.locator("h1")).to_be_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
            shoot(page, f"{name}-{width}")
    page.goto(f"{live_url}{project.get_absolute_url()}")
    page.click("#download-zip")
    expect(page.locator("#confirm-export")).to_contain_text("Some row is blue")
    shoot(page, "confirm-export-375")
    assert page.evaluate("window.__csp") == []
