"""A reviewer works through the queue with the keyboard only; an invalid correction is refused."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from playwright.sync_api import expect

from annotations.models import AnnotationSession, Review, Revision
from tests.support.reviews import VALID_HED, make_session

BROKEN = "Experiment-structure, (Onset, Blah"


def _runs(user, count: int = 3) -> list[AnnotationSession]:
    runs = []
    for n in range(count):
        session = make_session(user, description=f"keyboard run {n}", producer="offline annotator")
        AnnotationSession.objects.filter(pk=session.pk).update(created_at=timezone.now() - dt.timedelta(hours=10 - n))
        runs.append(session)
    return runs


def test_three_reviews_by_keyboard_only(page, live_url, login, user, reviewer) -> None:
    runs = _runs(user)
    login(page, "rev", "pw-rev-12345")
    page.goto(f"{live_url}/review/?queue=oldest")
    page.wait_for_selector("html[data-hedit-review=ready]", state="attached")
    page.keyboard.press("Enter")  # the first row is selected: open it
    for n, (rating, verdict) in enumerate((("4", "a"), ("2", "n"), ("1", "r"))):
        expect(page).to_have_url(f"{live_url}/sessions/{runs[n].pk}/?queue=oldest")
        page.wait_for_selector("html[data-hedit-review=ready]", state="attached")
        page.keyboard.press(rating)
        page.keyboard.press(verdict)
        expect(page.locator(f"#review-form input[name=rating][value='{rating}']")).to_be_checked()
        page.keyboard.press("Enter")  # Save & next
    expect(page).to_have_url(f"{live_url}/review/?queue=oldest&done=1")
    expect(page.locator("[data-queue-row]")).to_have_count(0)
    stored = {r.session_id: (r.rating, r.verdict) for r in Review.objects.all()}
    assert stored == {runs[0].pk: (4, "accept"), runs[1].pk: (2, "needs-fix"), runs[2].pk: (1, "reject")}
    # After its first review a run is still there for a second opinion.
    page.goto(f"{live_url}/review/?queue=second")
    expect(page.locator("[data-queue-row]")).to_have_count(3)


def test_invalid_correction_is_refused_and_the_annotation_stays_valid(page, live_url, login, user, reviewer) -> None:
    (session,) = _runs(user, 1)
    login(page, "rev", "pw-rev-12345")
    page.goto(f"{live_url}/sessions/{session.pk}/")
    editor = page.locator("#correction-hed")
    editor.fill(BROKEN)
    page.keyboard.press("4")  # typed into the editor, not taken as a rating
    expect(editor).to_have_value(BROKEN + "4")
    editor.fill(BROKEN)
    page.click("#correction-submit")
    expect(page.locator("#refused-issues")).to_be_visible()
    expect(page.locator("#correction-form .form-errors, #correction-form .field-error").first).to_contain_text(
        "does not validate")
    expect(page.locator("#final-annotation-text")).to_have_text(VALID_HED)
    expect(page.locator("#final-annotation .check--ok").first).to_have_text("Valid")
    stored = AnnotationSession.objects.get(pk=session.pk)
    assert (stored.final_annotation, stored.is_valid) == (VALID_HED, True)
    assert not Revision.objects.exists()

    # Kept as a draft instead: shown as such, never the final annotation.
    page.click("#correction-draft")
    expect(page.locator("#revision-list [data-draft=true]")).to_contain_text("draft, not applied")
    expect(page.locator("#final-annotation-text")).to_have_text(VALID_HED)
    assert Revision.objects.get(session=session).is_draft is True
    assert AnnotationSession.objects.get(pk=session.pk).final_annotation == VALID_HED
