"""In a real browser: the phone navigation folds to one line, and presets fill in their endpoint."""

from __future__ import annotations

from playwright.sync_api import expect


def test_phone_navigation_is_one_line_until_opened(page, live_url, login, user) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}/sessions/")
    header = page.locator(".site-header")
    history_link = page.locator(".site-nav a", has_text="History")
    expect(history_link).to_be_hidden()
    assert header.bounding_box()["height"] <= 80  # one row: brand, menu toggle, avatar
    page.click(".nav-toggle summary")  # <details>: no script involved
    expect(history_link).to_be_visible()
    page.click(".nav-toggle summary")
    expect(history_link).to_be_hidden()


def test_wide_screens_show_the_links_without_a_toggle(page, live_url, login, user) -> None:
    login(page, "ann", "pw-ann-12345")
    expect(page.locator(".nav-toggle")).to_be_hidden()
    expect(page.locator(".site-nav a", has_text="History")).to_be_visible()
    assert page.locator(".site-header").bounding_box()["height"] <= 80


def test_a_preset_fills_in_base_url_and_model_but_keeps_typed_values(page, live_url, login, user) -> None:
    login(page, "ann", "pw-ann-12345")
    page.goto(f"{live_url}/settings/llm/")
    page.select_option("#id_provider", "openrouter")
    expect(page.locator("#id_base_url")).to_have_value("https://openrouter.ai/api/v1")
    expect(page.locator("#id_model")).to_have_value("openai/gpt-4o-mini")
    page.select_option("#id_provider", "openai")  # another preset's values are replaced
    expect(page.locator("#id_base_url")).to_have_value("https://api.openai.com/v1")
    page.fill("#id_model", "my-own-model")
    page.select_option("#id_provider", "openrouter")  # a typed value is not
    expect(page.locator("#id_model")).to_have_value("my-own-model")
    expect(page.locator("#id_base_url")).to_have_value("https://openrouter.ai/api/v1")
