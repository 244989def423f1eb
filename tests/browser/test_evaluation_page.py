"""The evaluation page in the browser: at 375 px nothing scrolls sideways and every figure has its label; a
header click sorts; the Content-Security-Policy refuses nothing (the chart is inline SVG, styled by class)."""

from __future__ import annotations

from playwright.sync_api import expect

from annotations.review.services import submit_review
from tests.support.reviews import make_session

RECORD_CSP = "window.__csp = []; document.addEventListener('securitypolicyviolation', e => " \
             "window.__csp.push(e.violatedDirective + ' ' + (e.sample || '')));"


def _configurations(owner, reviewer) -> None:
    for model, cost, texts in (("a-long-hosted-model-name-2025", 0.0004, ["Sensory-event, (Red, Circle)"] * 3),
                               ("local-small", 0.0, ["Sensory-event"] * 3)):
        for text in texts:
            run = make_session(owner, annotation=text, llm_provider="models.example", llm_model=model,
                               llm_constraint="json_schema", prompt_version="p0000aaaa", cost_usd=cost,
                               llm_call_count=2, prompt_tokens=500, completion_tokens=40)
            submit_review(run, reviewer, rating=4, verdict="accept")


def test_the_page_at_375_px_and_sorting_by_a_header(live_url, page, login, user, reviewer):
    _configurations(user, reviewer)
    page.add_init_script(RECORD_CSP)
    page.set_viewport_size({"width": 375, "height": 800})
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}/evaluation/")
    expect(page.locator("#evaluation-table tbody tr")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    first = page.locator("#evaluation-table tbody tr").first
    expect(first.locator("td.cell-f1")).to_be_visible()
    assert first.locator("td.cell-cost").evaluate("td => getComputedStyle(td, '::before').content") == '"Cost"'
    expect(page.locator("#f1-cost-chart svg circle")).to_have_count(2)

    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("#evaluation-table th a", has_text="Cost").click()  # costliest first
    expect(page).to_have_url(f"{live_url}/evaluation/?sort=cost&dir=desc")
    expect(page.locator("#evaluation-table tbody tr").first).to_contain_text("a-long-hosted-model-name-2025")
    page.locator("#evaluation-table th a", has_text="Cost").click()
    expect(page.locator("#evaluation-table tbody tr").first).to_contain_text("local-small")
    assert page.evaluate("window.__csp") == []
