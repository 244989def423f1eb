"""A reviewer rates and corrects an annotation in the browser; the next CSV export carries it."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

from django.utils import timezone
from playwright.sync_api import expect

from annotations.models import AnnotationSession, Review, Revision
from tests.support.reviews import INVALID_HED, make_session

CORRECTED = "Sensory-event, Visual-presentation, (Image, Face)"


def test_reviewer_rates_and_corrects_then_exports(page, live_url, login, user, reviewer) -> None:
    session = make_session(user, description="A face appears on the screen", annotation=INVALID_HED,
                           is_valid=False, status="invalid")
    login(page, "rev", "pw-rev-12345")
    page.goto(f"{live_url}/sessions/{session.pk}/")
    page.evaluate("window.__samePage = true")  # gone if anything below reloads the page

    # Rate and judge: the panel is swapped in place.
    page.check("#review-rating_1")  # 2 of 5
    page.check("input[name=verdict][value=needs-fix]")
    page.fill("#review-comment", "Blorp is not a HED tag")
    page.click("#review-submit")
    expect(page.locator("#review-list [data-reviewer=rev]")).to_contain_text("Blorp is not a HED tag")
    expect(page.locator("#review-mean")).to_have_text("2.0 / 5")
    expect(page.locator("#review-verdicts")).to_contain_text("needs fix 1")

    # Correct: the editor validates as you type and completes tag names from the schema.
    editor = page.locator("#correction-hed")
    expect(page.locator("#correction-check .validation-result")).to_have_attribute("data-valid", "false")
    editor.fill("")
    editor.press_sequentially("Sensory-event, Visual-presentation, (Image, Fa")
    page.locator(".tag-suggestion[data-tag=Face]").click()
    editor.press_sequentially(")")
    expect(editor).to_have_value(CORRECTED)
    expect(page.locator("#correction-check .validation-result")).to_have_attribute("data-valid", "true")
    page.fill("#correction-comment", "real tags only")
    page.click("#correction-submit")
    expect(page.locator("#revision-list [data-author=rev] .revision__after")).to_have_text(CORRECTED)
    # The page's annotation card shows the correction and keeps the machine's annotation beside it.
    expect(page.locator("#final-annotation-text")).to_have_text(CORRECTED)
    expect(page.locator("#final-annotation .machine")).to_contain_text("Blorp-invented-tag")
    assert page.evaluate("window.__samePage") is True

    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.machine_annotation) == (CORRECTED, INVALID_HED)
    assert Review.objects.get(session=session).rating == 2
    assert Revision.objects.get(session=session).after == CORRECTED

    # The next CSV export has the correction and the review.
    page.goto(f"{live_url}/export/")
    page.check("input[name=format][value=csv]")
    with page.expect_download() as download:
        page.click("#export-submit")
    text = download.value.path().read_text(encoding="utf-8")
    (row,) = [r for r in csv.DictReader(io.StringIO(text)) if r["id"] == str(session.pk)]
    assert (row["annotation"], row["corrected"], row["valid"]) == (CORRECTED, "true", "true")
    assert (row["mean_rating"], row["needs_fix"], row["reviews"]) == ("2.00", "1", "1")


def test_review_queue_by_keyboard(page, live_url, login, user, reviewer) -> None:
    now = timezone.now()
    first = make_session(user, description="first in the queue")
    second = make_session(user, description="second in the queue")
    AnnotationSession.objects.filter(pk=first.pk).update(created_at=now - dt.timedelta(hours=2))
    AnnotationSession.objects.filter(pk=second.pk).update(created_at=now - dt.timedelta(hours=1))
    login(page, "rev", "pw-rev-12345")

    page.goto(f"{live_url}/review/")
    page.wait_for_selector("html[data-hedit-review=ready]", state="attached")
    rows = page.locator("[data-queue-row]")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_class(re.compile("is-selected"))
    page.keyboard.press("j")
    expect(rows.nth(1)).to_have_class(re.compile("is-selected"))
    page.keyboard.press("k")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    # The queue's order (the default: requested first, then oldest) travels with the reviewer.
    expect(page).to_have_url(f"{live_url}/sessions/{second.pk}/?queue=requested")

    # On a run, k / j step to the previous / next run waiting for review (once review.js is in).
    page.wait_for_selector("html[data-hedit-review=ready]", state="attached")
    page.keyboard.press("k")
    expect(page).to_have_url(f"{live_url}/sessions/{first.pk}/?queue=requested")
    page.wait_for_selector("html[data-hedit-review=ready]", state="attached")
    page.keyboard.press("j")
    expect(page).to_have_url(f"{live_url}/sessions/{second.pk}/?queue=requested")
