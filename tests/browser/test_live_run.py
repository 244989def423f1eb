"""A run watched live in a real browser, the way a user sees it."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from annotations.models import AgentStepRecord, AnnotationSession

# A word no other test uses, so the history search finds exactly this run.
MARKER = "marimba"
DESCRIPTION = (f"A red circle appears on the left side of the screen while a {MARKER} plays, "
               "and the participant presses the left button.")


def step_seqs(page) -> list[int]:
    return page.locator("#progress > li").evaluate_all("els => els.map(e => Number(e.dataset.stepSeq))")


def test_annotate_watch_live_reload_and_find_in_history(page, live_url, login, user) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    login(page, "ann", "pw-ann-12345")

    page.goto(f"{live_url}/")
    page.fill("#annotate-form textarea[name=description]", DESCRIPTION)
    page.check("#annotate-form input[name=run_assessment]")
    page.click("#annotate-submit")
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    session_id = page.url.rstrip("/").rsplit("/", 1)[-1]

    final = page.locator("#final-annotation")
    expect(final).to_have_attribute("data-status", "succeeded", timeout=30_000)
    steps = page.locator("#progress > li")
    count = steps.count()
    assert count >= 3
    assert step_seqs(page) == list(range(1, count + 1))  # in order, no duplicates, no gaps
    agents = steps.evaluate_all("els => els.map(e => e.dataset.agent)")
    assert agents[:3] == ["annotation", "validation", "evaluation"]
    # The steps came over the websocket, not with the page.
    live = {int(m.group(1)) for f in frames if (m := re.search(r'data-step-seq="(\d+)"', f))}
    assert len(live) >= 3, f"only steps {sorted(live)} arrived over the websocket"

    annotation = page.locator("#final-annotation-text").inner_text()
    assert "Sensory-event" in annotation
    expect(page.locator("#final-annotation-text .hed-tag[title]").first).to_have_attribute("title", re.compile(r"\w"))
    expect(page.locator("#rerun-button")).to_be_visible()
    expect(page.locator("#cancel-button")).to_have_count(0)

    # The live server wrote to the same database this test reads.
    stored = AnnotationSession.objects.get(pk=session_id)
    assert stored.status == "succeeded" and stored.final_annotation == annotation
    assert AgentStepRecord.objects.filter(session=stored).count() == count

    page.reload()
    expect(final).to_have_attribute("data-status", "succeeded")
    expect(steps).to_have_count(count)
    assert step_seqs(page) == list(range(1, count + 1))
    assert page.locator("#final-annotation-text").inner_text() == annotation

    page.click("nav.site-nav >> text=History")
    page.fill("#history-filters input[name=q]", MARKER)
    page.press("#history-filters input[name=q]", "Enter")
    expect(page).to_have_url(re.compile(rf"/sessions/\?q={MARKER}"))
    rows = page.locator("#history-table tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-session", session_id)
    rows.first.locator("a").first.click()
    expect(page).to_have_url(f"{live_url}/sessions/{session_id}/")


def test_anonymous_visitor_lands_on_login(page, live_url, user) -> None:
    session = AnnotationSession.objects.create(user=user, description="A tone plays.", schema_version="8.4.0",
                                               status="succeeded")
    page.goto(f"{live_url}{session.get_absolute_url()}")
    expect(page).to_have_url(f"{live_url}/accounts/login/?next=/sessions/{session.pk}/")
    expect(page.locator("#login-form")).to_be_visible()
    # The socket refuses too, with a close code the page's script will not retry.
    code = page.evaluate("""url => new Promise(done => {
        const ws = new WebSocket(url);
        ws.onclose = event => done(event.code);
    })""", f"{live_url.replace('http', 'ws', 1)}/ws/sessions/{session.pk}/")
    assert code == 4401


def test_rerun_from_the_controls_the_socket_delivered(page, live_url, login, user) -> None:
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}/")
    page.fill("#annotate-form textarea[name=description]", "A green square appears and a tone plays.")
    page.click("#annotate-submit")
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    first_url = page.url
    final = page.locator("#final-annotation")
    expect(final).to_have_attribute("data-status", "succeeded", timeout=30_000)
    # Rendered outside any request, the re-run form carries the CSRF token from the socket's cookie.
    token = page.locator("#session-status input[name=csrfmiddlewaretoken]").get_attribute("value")
    assert token in {c["value"] for c in page.context.cookies() if c["name"] == "csrftoken"}
    page.click("#rerun-button")
    expect(page).not_to_have_url(first_url)
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    expect(final).to_have_attribute("data-status", "succeeded", timeout=30_000)


def test_cancel_a_queued_run(page, live_url, login, user) -> None:
    # Stored directly, never enqueued: it stays queued until the user cancels it.
    session = AnnotationSession.objects.create(user=user, description="A tone plays.", schema_version="8.4.0",
                                               options={"schema_version": "8.4.0"})
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}{session.get_absolute_url()}")
    expect(page.locator("#final-annotation")).to_have_attribute("data-status", "queued")
    page.click("#cancel-button")
    expect(page.locator("#final-annotation")).to_have_attribute("data-status", "cancelled")
    expect(page.locator("#rerun-button")).to_be_visible()
    session.refresh_from_db()
    assert session.status == "cancelled"
