"""Questions for the lab in the browser: upload a dataset whose sidecar leaves some levels unexplained, annotate it,
answer one question in place, watch that level annotated again and the task's quality panel follow, download.

Everything live must reach the open page without a reload: the test marks the window and checks the mark is
still there at the end. Waits are on page conditions only.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from playwright.sync_api import expect

from annotations.models import FINISHED_STATUSES, AnnotationSession, DatasetLevel, DatasetProject, JobStatus
from tests.datasets.lab import EVENTS, QUESTIONS, SIDECAR
from tests.support.datasets import zip_folder

ANSWER = "A red circle appears in the centre of the screen."
# Records every data-status the answered level's row shows, so the test can check it went through a run.
RECORD_STATUSES = """(rowId) => {
  window.__statuses = [];
  const note = () => {
    const row = document.getElementById(rowId);
    const status = row && row.dataset.status;
    if (status && window.__statuses[window.__statuses.length - 1] !== status) window.__statuses.push(status);
  };
  note();
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


def make_dataset(root: Path) -> Path:
    root.mkdir()
    (root / "dataset_description.json").write_text(json.dumps(
        {"Name": "Stars (synthetic)", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}), encoding="utf-8")
    (root / "task-stars_events.json").write_text(json.dumps(SIDECAR, indent=2), encoding="utf-8")
    for sub in ("01", "02"):
        folder = root / f"sub-{sub}" / "eeg"
        folder.mkdir(parents=True)
        (folder / f"sub-{sub}_task-stars_events.tsv").write_text(EVENTS, encoding="utf-8")
    return root


def test_answer_a_question_and_watch_the_level_and_the_rows_follow(page, live_url, login, user, tmp_path) -> None:
    archive = zip_folder(make_dataset(tmp_path / "stars"), tmp_path / "stars.zip", top="stars")
    page.add_init_script("document.addEventListener('htmx:wsOpen', () => "
                         "{ document.documentElement.setAttribute('data-ws-open', 'true'); });")
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}/datasets/")
    page.set_input_files("#dataset-upload input[name=files]", str(archive))
    page.fill("#dataset-upload input[name=name]", "Stars")
    page.click("#dataset-upload-submit")
    expect(page).to_have_url(re.compile(r"/datasets/[0-9a-f-]{36}/$"))
    project_url = page.url

    # The questions, worded for the lab, each with its answer box; the quality panel loads after the page.
    questions = page.locator("#questions li.ds-question")
    expect(questions).to_have_count(len(QUESTIONS))
    expect(questions.nth(1)).to_contain_text("What does 6 mean in column value (its other codes: 7)?")
    expect(page.locator("#questions-count-stars")).to_have_text(str(len(QUESTIONS)))
    expect(page.locator("#quality-line-stars")).to_contain_text("5 open questions")
    # The preview comes once the background validation stored its result (slower on a busy machine).
    expect(page.locator("#rows-stars tbody tr")).to_have_count(8, timeout=30_000)  # both files' four rows

    # Annotate all: undescribed levels are annotated too, but never look done.
    page.wait_for_selector("html[data-ws-open=true]", state="attached")
    page.evaluate("window.__marker = 'same page'")
    page.click("#annotate-all")
    counts = page.locator("#dataset-counts")
    expect(counts).to_have_attribute("data-status", "done", timeout=90_000)
    six = DatasetLevel.objects.get(column__task__project__name="Stars", column__name="value", value="6")
    row = page.locator(f"#level-{six.pk}")
    expect(row).to_have_attribute("data-status", "needs_description")
    expect(row.locator(".badge")).to_have_text("Needs description")
    # The job's end redraws the panel: the rows carry the new HED and each has a verdict.
    expect(page.locator("#rows-stars tbody tr .ds-hed .hed")).to_have_count(8)
    verdicts = page.locator("#rows-stars tbody tr .ds-verdict .check")
    expect(verdicts.first).to_be_visible()
    before = page.locator("#rows-stars tr[data-line='4'] .ds-hed").first.inner_text()

    # Answer the trigger's question: its row is swapped in place, the page stays.
    page.evaluate(RECORD_STATUSES, f"level-{six.pk}")
    question = page.locator(f"#q-{six.column_id}-{six.pk}")
    question.locator("textarea").fill(ANSWER)
    question.get_by_role("button", name="Answer").click()
    answered = page.locator(f"#q-{six.column_id}-{six.pk}[data-answered=true]")
    expect(answered).to_contain_text(f"Answered: {ANSWER}")

    # The level is annotated again, live: its row goes through the run and ends valid.
    expect(row).to_have_attribute("data-status", "valid", timeout=60_000)
    seen = page.evaluate("window.__statuses")
    assert seen[0] == "needs_description" and seen[-1] == "valid" and "running" in seen, seen
    # ...and the quality panel follows: one question fewer, and the trigger's rows carry its new HED.
    expect(page.locator("#quality-line-stars")).to_contain_text("4 open questions", timeout=30_000)
    expect(page.locator("#rows-stars tr[data-line='4'] .ds-hed").first).not_to_have_text(before)
    assert page.evaluate("window.__marker") == "same page", "the page reloaded or navigated"
    assert page.url == project_url

    # The downloaded sidecar says what the lab said.
    page.goto(f"{project_url}tasks/stars/sidecar/")
    with page.expect_download() as download:
        page.click("#download-json")
    sidecar = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert sidecar["value"]["Levels"]["6"] == ANSWER
    assert sidecar["value"]["HED"]["6"] != sidecar["value"]["HED"].get("7")


SHARED_EVENTS = "onset\tduration\tphase\tside\n1\t0\t1\tleft\n2\t0\t2\tright\n3\t0\t1\tleft\n"
SHARED_TASKS = ("colors", "shapes", "sizes")


def make_shared_dataset(root: Path) -> Path:
    """Three made-up tasks with the same two undescribed columns: 6 questions each, 6 distinct."""
    root.mkdir()
    (root / "dataset_description.json").write_text(json.dumps(
        {"Name": "Shared columns (synthetic)", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}), encoding="utf-8")
    folder = root / "sub-01" / "beh"
    folder.mkdir(parents=True)
    for task in SHARED_TASKS:
        (folder / f"sub-01_task-{task}_events.tsv").write_text(SHARED_EVENTS, encoding="utf-8")
    return root


def test_each_question_is_asked_once_across_tasks_and_answered_once_for_all(page, live_url, login, user,
                                                                            tmp_path) -> None:
    archive = zip_folder(make_shared_dataset(tmp_path / "shared"), tmp_path / "shared.zip", top="shared")
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}/datasets/")
    page.set_input_files("#dataset-upload input[name=files]", str(archive))
    page.fill("#dataset-upload input[name=name]", "Shared")
    page.click("#dataset-upload-submit")
    expect(page).to_have_url(re.compile(r"/datasets/[0-9a-f-]{36}/$"))

    # One question per distinct column and level (2 column questions, 4 levels), each naming its tasks.
    questions = page.locator("#questions li.ds-question")
    expect(questions).to_have_count(6)
    expect(page.locator("#questions-count")).to_have_text("6")
    for task in SHARED_TASKS:
        expect(page.locator(f"#questions-count-{task}")).to_have_text("6")
    left = DatasetLevel.objects.filter(column__task__project__name="Shared", column__name="side", value="left")
    first = left.order_by("column__task__name").first()
    question = page.locator(f"#q-{first.column_id}-{first.pk}")
    expect(question).to_contain_text("Asked in 3 tasks")

    # Answered once: the row swaps in place and the level is described in every task.
    question.locator("textarea").fill("The target is on the left.")
    question.get_by_role("button", name="Answer").click()
    expect(page.locator(f"#q-{first.column_id}-{first.pk}[data-answered=true]")).to_contain_text("in 3 tasks")
    assert sorted(left.values_list("description", flat=True)) == ["The target is on the left."] * 3
    page.reload()
    expect(page.locator("#questions li.ds-question")).to_have_count(5)
    for task in SHARED_TASKS:
        expect(page.locator(f"#questions-count-{task}")).to_have_text("5")

    # The rest from a pasted table: every task answered at once.
    table = ("column\tlevel\tdescription\nside\tright\tThe target is on the right.\n"
             "phase\t1\tThe cue appears.\nphase\t2\tFeedback shows.\n")
    page.fill("#questions-table-text", table)
    page.click("#questions-table-submit")
    expect(page.locator("#questions li.ds-question")).to_have_count(2)  # the two columns' own questions
    for task in SHARED_TASKS:
        expect(page.locator(f"#questions-count-{task}")).to_have_text("2")
    assert_settled(DatasetProject.objects.get(name="Shared"), page)


def assert_settled(project: DatasetProject, page, timeout: float = 120.0) -> None:
    """The answered levels' runs and the validation they end with are over: the project is ``done`` with no
    run or sidecar request still at work (the server must not write while the test's database is emptied)."""
    deadline = time.monotonic() + timeout
    while True:
        project.refresh_from_db()
        busy = (AnnotationSession.objects.filter(dataset_level__column__task__project=project)
                .exclude(status__in=FINISHED_STATUSES).exists()
                or project.tasks.filter(validation_lease_expires_at__isnull=False).exists())
        if (project.status == JobStatus.DONE and not busy) or time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)  # the server's own threads finish the work; the page only waits
    assert project.status == JobStatus.DONE and not busy, (project.status, busy)
